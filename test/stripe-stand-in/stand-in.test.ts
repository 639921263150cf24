import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import type Stripe from "stripe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decodeForm } from "../helpers/stripe-stand-in/form-body.ts";
import { startStripeStandIn, type StripeStandIn } from "../helpers/stripe-stand-in/stand-in.ts";
import { standInClient } from "../helpers/stripe-stand-in/stripe-context.ts";
import { stripeDocumentAvailable } from "../helpers/stripe-stand-in/stripe-openapi.ts";
import { REFERENCE_MISSING } from "../helpers/reference.ts";

// The stand-in is what the Stripe adapter's tests trust: these prove it refuses what Stripe's
// document refuses, keeps idempotency keys, and signs and orders its events as Stripe does.

let standIn: StripeStandIn;
let stripe: Stripe;
let receiver: { url: string; received: { type: string; verified: boolean }[]; close: () => Promise<void> };

async function readAll(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

beforeAll(async () => {
  standIn = await startStripeStandIn();
  stripe = standInClient(standIn);
  const received: { type: string; verified: boolean }[] = [];
  const server = createServer((request, response) => {
    void readAll(request).then((body) => {
      let verified = true;
      let type = "";
      try {
        type = stripe.webhooks.constructEvent(body, String(request.headers["stripe-signature"]), standIn.webhookSecret).type;
      } catch {
        verified = false;
      }
      received.push({ type, verified });
      response.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  receiver = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    received,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
  standIn.deliverTo(receiver.url);
});
afterAll(async () => {
  await standIn.close();
  await receiver.close();
});

const post = (path: string, body: string, key = standIn.secretKey) =>
  fetch(`${standIn.url}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/x-www-form-urlencoded" },
    body,
  });

describe("the Stripe stand-in", () => {
  it("decodes Stripe's form encoding: nested keys and arrays", () => {
    expect(decodeForm("a=1&metadata[k]=v&expand[0]=x&expand[1]=y&card[nested][deep]=z&list[]=p&list[]=q")).toEqual({
      a: "1",
      metadata: { k: "v" },
      expand: ["x", "y"],
      card: { nested: { deep: "z" } },
      list: ["p", "q"],
    });
  });

  it.for([
    ["an unknown parameter", "amount=100&currency=usd&colour=blue", /colour/],
    ["a wrong type", "amount=lots&currency=usd", /amount must be integer/],
    ["a missing required parameter", "currency=usd", /required property 'amount'/],
  ] as const)("records %s as a violation of Stripe's document", async ([, body, problem], { skip }) => {
    skip(!stripeDocumentAvailable, REFERENCE_MISSING);
    await post("/v1/payment_intents", body);
    expect(standIn.violations.join("\n")).toMatch(problem);
    expect(() => standIn.assertNoViolations()).toThrow(problem);
    expect(standIn.violations).toEqual([]);
  });

  it("refuses a wrong key with Stripe's 401", async () => {
    const response = await post("/v1/customers", "email=a%40example.com", "sk_test_wrong");
    expect(response.status).toBe(401);
    expect(((await response.json()) as { error: { type: string } }).error.type).toBe("invalid_request_error");
  });

  it("replays the first answer to a repeated idempotency key, and refuses the key with other parameters", async () => {
    const first = await stripe.customers.create({ email: "same@example.com" }, { idempotencyKey: "key-1" });
    const again = await stripe.customers.create({ email: "same@example.com" }, { idempotencyKey: "key-1" });
    expect(again.id).toBe(first.id);
    expect(again.lastResponse.headers["idempotent-replayed"]).toBe("true");
    await expect(stripe.customers.create({ email: "other@example.com" }, { idempotencyKey: "key-1" })).rejects.toMatchObject({
      type: "StripeIdempotencyError",
    });
    standIn.assertNoViolations();
  });

  it("behaves as Stripe's test cards: success, decline, 3-D Secure, and an off-session charge needing authentication", async () => {
    const customer = await stripe.customers.create({ email: "cards@example.com" });
    const token = async (card: string) => (await stripe.testHelpers.confirmationTokens.create({ payment_method: card })).id;
    const pay = async (card: string, extra: Partial<Stripe.PaymentIntentCreateParams> = {}) =>
      stripe.paymentIntents.create({
        amount: 1000,
        currency: "usd",
        customer: customer.id,
        confirm: true,
        confirmation_token: await token(card),
        ...extra,
      });
    expect((await pay("pm_card_visa")).status).toBe("succeeded");
    await expect(pay("pm_card_chargeDeclined")).rejects.toMatchObject({
      type: "StripeCardError",
      code: "card_declined",
      decline_code: "generic_decline",
    });
    const challenged = await pay("pm_card_authenticationRequired", { setup_future_usage: "off_session" });
    expect(challenged.status).toBe("requires_action");
    await standIn.authenticate(challenged.id, "succeeded");
    const passed = await stripe.paymentIntents.retrieve(challenged.id);
    expect(passed.status).toBe("succeeded");
    await expect(
      stripe.paymentIntents.create({
        amount: 500,
        currency: "usd",
        customer: customer.id,
        payment_method: passed.payment_method as string,
        confirm: true,
        off_session: true,
      }),
    ).rejects.toMatchObject({ type: "StripeCardError", code: "authentication_required" });
    standIn.assertNoViolations();
  });

  it("signs its events with the endpoint's secret and sends them in Stripe's order, held ones late, reversed or twice", async () => {
    await standIn.delivered();
    receiver.received.length = 0;
    const token = (await stripe.testHelpers.confirmationTokens.create({ payment_method: "pm_card_visa" })).id;
    await stripe.paymentIntents.create({ amount: 700, currency: "usd", confirm: true, confirmation_token: token });
    await standIn.delivered();
    expect(receiver.received).toEqual([
      { type: "charge.succeeded", verified: true },
      { type: "payment_intent.succeeded", verified: true },
    ]);

    receiver.received.length = 0;
    standIn.setDelivery("held");
    const held = (await stripe.testHelpers.confirmationTokens.create({ payment_method: "pm_card_visa" })).id;
    await stripe.paymentIntents.create({ amount: 800, currency: "usd", confirm: true, confirmation_token: held });
    expect(receiver.received).toEqual([]);
    expect(await standIn.release({ reversed: true, twice: true })).toEqual([200, 200, 200, 200]);
    expect(receiver.received.map((event) => event.type)).toEqual([
      "payment_intent.succeeded",
      "payment_intent.succeeded",
      "charge.succeeded",
      "charge.succeeded",
    ]);
    standIn.setDelivery("immediate");
    standIn.assertNoViolations();
  });
});
