import type Stripe from "stripe";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { TestContext } from "../../helpers/context.ts";
import { createOrganization, createOrganizationToken, createProduct, registerForTax } from "../../helpers/factories.ts";
import type { StripeStandIn } from "../../helpers/stripe-stand-in/stand-in.ts";
import { openStripeContext } from "../../helpers/stripe-stand-in/stripe-context.ts";
import { FR_ADDRESS, openCheckoutThroughApi } from "../checkouts/checkout-helpers.ts";
import { WEBHOOK_URL, runEventJobs, storedEvents } from "./stripe-webhook-helpers.ts";

// Refunds end to end: the Stripe adapter asks the stand-in, whose signed events reach this server's
// webhook over real HTTP (before the refund request has answered, as Stripe may send them).

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
  token = await createOrganizationToken(ctx.deps, org.id, ["checkouts:write", "refunds:write", "refunds:read"]);
  productId = (await createProduct(ctx.deps, org.id)).product.id;
});
afterEach(() => stripe.assertNoViolations());
afterAll(() => close());

/** A paid order bought with one of Stripe's test cards. */
async function paidWith(paymentMethod: string) {
  stripe.setDelivery("immediate");
  const session = await openCheckoutThroughApi(ctx, token, { products: [productId] });
  const confirmationToken = (await sdk.testHelpers.confirmationTokens.create({ payment_method: paymentMethod })).id;
  const response = await ctx.request({
    method: "POST",
    url: `/v1/checkouts/client/${session.client_secret}/confirm`,
    payload: {
      customer_email: `buyer-${paymentMethod}@example.com`,
      customer_name: "Bea Buyer",
      customer_billing_address: { ...FR_ADDRESS, country: "FR" },
      confirmation_token_id: confirmationToken,
    },
  });
  expect(response.statusCode, response.body).toBe(200);
  await stripe.delivered();
  return ctx.deps.db.selectFrom("orders").selectAll().where("checkout_id", "=", session.id).executeTakeFirstOrThrow();
}

async function refund(orderId: string, amount: number) {
  // Stripe's events of the refund reach the webhook before the request's own transaction commits.
  stripe.setDelivery("before-response");
  const response = await ctx.request({
    method: "POST",
    url: "/v1/refunds/",
    token,
    payload: { order_id: orderId, reason: "customer_request", amount },
  });
  expect(response.statusCode, response.body).toBe(201);
  await stripe.delivered();
  return response.json<{ id: string; status: string }>();
}

const orderOf = (id: string) => ctx.deps.db.selectFrom("orders").selectAll().where("id", "=", id).executeTakeFirstOrThrow();
const refundRow = (id: string) => ctx.deps.db.selectFrom("refunds").selectAll().where("id", "=", id).executeTakeFirstOrThrow();

describe("Stripe's refund events", () => {
  it("a refund Stripe settles at once is counted once, whatever its events say after", async () => {
    const order = await paidWith("pm_card_visa");
    const answered = await refund(order.id, 1000);
    expect(answered.status).toBe("succeeded");
    await runEventJobs(ctx);
    const stored = (await storedEvents(ctx)).filter((row) => row.type === "refund.created");
    expect(stored.length).toBeGreaterThanOrEqual(1);
    expect(stored.every((row) => row.handled_at !== null)).toBe(true);
    expect(await orderOf(order.id)).toMatchObject({ status: "partially_refunded", refunded_amount: 1000 });

    // Stripe redelivers the event: stored once, acted on once.
    const event = stripe.events.filter((e) => e.type === "refund.created").at(-1)!;
    expect(await stripe.resend(event.id)).toBe(202);
    await runEventJobs(ctx);
    expect((await storedEvents(ctx)).filter((row) => row.external_id === event.id)).toHaveLength(1);
    expect((await orderOf(order.id)).refunded_amount).toBe(1000);
  });

  it("a refund Stripe keeps pending stays off the order, and its failure closes it failed", async () => {
    const order = await paidWith("pm_card_refundFail");
    const answered = await refund(order.id, 1000);
    expect(answered.status).toBe("pending");
    await runEventJobs(ctx);
    expect((await refundRow(answered.id)).status).toBe("pending");
    expect(await orderOf(order.id)).toMatchObject({ status: "paid", refunded_amount: 0 });

    stripe.setDelivery("immediate");
    const reference = (await refundRow(answered.id)).processor_reference!;
    await stripe.failRefund(reference);
    await stripe.delivered();
    await runEventJobs(ctx);
    expect(await refundRow(answered.id)).toMatchObject({
      status: "failed",
      failure_message: "The refund failed: expired_or_canceled_card.",
    });
    expect(await orderOf(order.id)).toMatchObject({ status: "paid", refunded_amount: 0, refunded_tax_amount: 0 });
  });
});
