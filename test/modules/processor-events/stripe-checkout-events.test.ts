import { sql } from "kysely";
import type Stripe from "stripe";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { TestContext } from "../../helpers/context.ts";
import { createOrganization, createOrganizationToken, createProduct, registerForTax } from "../../helpers/factories.ts";
import type { StripeStandIn } from "../../helpers/stripe-stand-in/stand-in.ts";
import { openStripeContext } from "../../helpers/stripe-stand-in/stripe-context.ts";
import { FR_ADDRESS, openCheckoutThroughApi } from "../checkouts/checkout-helpers.ts";
import { WEBHOOK_URL, runEventJobs, storedEvents } from "./stripe-webhook-helpers.ts";

// Both paths converge: whether Stripe's answer to the confirm request or its webhook event comes
// first, early, late, twice or out of order, a checkout gives one order, one payment, one set of
// webhooks. Real HTTP both ways: the adapter asks the stand-in, whose signed events reach the inbox.

let ctx: TestContext;
let stripe: StripeStandIn;
let sdk: Stripe;
let close: () => Promise<void>;
let token: string;
let productId: string;

beforeAll(async () => {
  ({ ctx, stripe, sdk, close } = await openStripeContext({ webhookPath: WEBHOOK_URL }));
  const org = await createOrganization(ctx.deps);
  await registerForTax(ctx.deps, org.id);
  token = await createOrganizationToken(ctx.deps, org.id, ["checkouts:write", "disputes:read", "disputes:write"]);
  productId = (await createProduct(ctx.deps, org.id)).product.id;
});
afterEach(async () => {
  stripe.setDelivery("immediate");
  await stripe.delivered();
  stripe.assertNoViolations();
});
afterAll(() => close());

async function confirmWith(paymentMethod: string) {
  const session = await openCheckoutThroughApi(ctx, token, { products: [productId] });
  const response = await ctx.request({
    method: "POST",
    url: `/v1/checkouts/client/${session.client_secret}/confirm`,
    payload: {
      customer_email: `${session.id}@example.com`,
      customer_name: "Bea Buyer",
      customer_billing_address: { ...FR_ADDRESS, country: "FR" },
      confirmation_token_id: (await sdk.testHelpers.confirmationTokens.create({ payment_method: paymentMethod })).id,
    },
  });
  expect(response.statusCode, response.body).toBe(200);
  return {
    session,
    confirmed: response.json<{ customer_session_token: string | null; payment_processor_metadata: Record<string, string> }>(),
  };
}

/** What one checkout left: its status, its orders, their payments, and the webhook events recorded about them. */
async function outcomeOf(checkoutId: string) {
  const { status } = await ctx.deps.db.selectFrom("checkouts").select("status").where("id", "=", checkoutId).executeTakeFirstOrThrow();
  const orders = await ctx.deps.db.selectFrom("orders").select(["id", "status"]).where("checkout_id", "=", checkoutId).execute();
  const orderIds = orders.map((order) => order.id);
  const payments = orderIds.length
    ? await ctx.deps.db.selectFrom("payments").select("status").where("order_id", "in", orderIds).execute()
    : [];
  const webhooks = orderIds.length
    ? await ctx.deps.db
        .selectFrom("webhook_events")
        .select("type")
        .where(sql<boolean>`payload->'data'->>'id' = ANY(${orderIds})`)
        .orderBy("position")
        .execute()
    : [];
  return {
    status,
    orders: orders.map((order) => order.status),
    payments: payments.map((payment) => payment.status),
    webhooks: webhooks.map((row) => row.type),
  };
}

const ONE_PAID_ORDER = {
  status: "succeeded",
  orders: ["paid"],
  payments: ["succeeded"],
  webhooks: ["order.created", "order.paid"],
};

describe("Stripe's events and the confirm request converge", () => {
  it("events delivered before the confirm request commits: one order, and the buyer still gets their session", async () => {
    stripe.setDelivery("before-response");
    const { session, confirmed } = await confirmWith("pm_card_visa");
    expect(confirmed.customer_session_token).toMatch(/^polar_cst_/);
    await runEventJobs(ctx);
    expect(await outcomeOf(session.id)).toEqual(ONE_PAID_ORDER);
  });

  it("events delivered late, twice: stored once, nothing done twice", async () => {
    stripe.setDelivery("held");
    const { session } = await confirmWith("pm_card_visa");
    const before = (await storedEvents(ctx)).length;
    expect(await stripe.release({ twice: true })).toEqual([202, 202, 202, 202]);
    expect((await storedEvents(ctx)).length).toBe(before + 2);
    await runEventJobs(ctx);
    expect(await outcomeOf(session.id)).toEqual(ONE_PAID_ORDER);
    expect((await storedEvents(ctx)).every((event) => event.handled_at !== null)).toBe(true);
  });

  it("3-D Secure finished in the browser: the order is made by Stripe's events, whichever comes first", async () => {
    const { session, confirmed } = await confirmWith("pm_card_authenticationRequired");
    expect(confirmed.customer_session_token).toBeNull();
    expect((await outcomeOf(session.id)).orders).toEqual([]);
    stripe.setDelivery("held");
    await stripe.authenticate(confirmed.payment_processor_metadata.intent_id!, "succeeded");
    // Out of order: payment_intent.succeeded before charge.succeeded, each twice.
    await stripe.release({ reversed: true, twice: true });
    await runEventJobs(ctx);
    expect(await outcomeOf(session.id)).toEqual(ONE_PAID_ORDER);
  });

  it("a failed 3-D Secure challenge reopens the session for another card, with no order", async () => {
    const { session, confirmed } = await confirmWith("pm_card_authenticationRequired");
    await stripe.authenticate(confirmed.payment_processor_metadata.intent_id!, "failed");
    await stripe.delivered();
    await runEventJobs(ctx);
    expect(await outcomeOf(session.id)).toEqual({ status: "open", orders: [], payments: [], webhooks: [] });
  });
});

describe("disputes from Stripe", () => {
  const disputesOf = async (checkoutId: string) => {
    const order = await ctx.deps.db.selectFrom("orders").select("id").where("checkout_id", "=", checkoutId).executeTakeFirstOrThrow();
    const response = await ctx.request({ method: "GET", url: `/v1/disputes/?order_id=${order.id}`, token });
    expect(response.statusCode, response.body).toBe(200);
    return response.json<{ items: { id: string; status: string; amount: number; tax_amount: number }[] }>().items;
  };

  it("a dispute Stripe opens on a charge appears needs_response, and is lost when Stripe closes it so", async () => {
    const { session } = await confirmWith("pm_card_createDispute");
    await stripe.delivered();
    await runEventJobs(ctx);
    const [opened] = await disputesOf(session.id);
    expect(opened).toMatchObject({ status: "needs_response" });
    expect(opened!.amount + opened!.tax_amount).toBe(3000);
    const disputeId = stripe.events.find((event) => event.type === "charge.dispute.created")!.data.object.id;
    await stripe.closeDispute(disputeId, "lost");
    await runEventJobs(ctx);
    expect((await disputesOf(session.id)).map((dispute) => dispute.status)).toEqual(["lost"]);
  });

  it("accepting a dispute closes it at Stripe (lost), and Stripe's closed event that follows changes nothing more", async () => {
    const { session } = await confirmWith("pm_card_createDispute");
    await stripe.delivered();
    await runEventJobs(ctx);
    const [opened] = await disputesOf(session.id);
    const accepted = await ctx.request({ method: "POST", url: `/v1/disputes/${opened!.id}/accept`, token });
    expect(accepted.statusCode, accepted.body).toBe(200);
    expect(accepted.json()).toMatchObject({ status: "lost" });
    const closes = stripe.requests.filter((request) => request.method === "POST" && /^\/v1\/disputes\/du_\w+\/close$/.test(request.path));
    expect(closes.at(-1)!.idempotencyKey).toBe(`dispute-close:${opened!.id}`);
    await stripe.delivered();
    await runEventJobs(ctx);
    expect((await disputesOf(session.id)).map((dispute) => dispute.status)).toEqual(["lost"]);
  });
});
