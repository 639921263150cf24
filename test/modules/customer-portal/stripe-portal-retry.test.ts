import type Stripe from "stripe";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { TestContext } from "../../helpers/context.ts";
import { expectReferenceResponse } from "../../helpers/reference.ts";
import type { StripeStandIn } from "../../helpers/stripe-stand-in/stand-in.ts";
import { openStripeContext } from "../../helpers/stripe-stand-in/stripe-context.ts";
import { WEBHOOK_URL, runEventJobs } from "../processor-events/stripe-webhook-helpers.ts";
import { orderOf, paymentsOf, subscriptionOf } from "./payment-helpers.ts";
import { stripeRetryHelpers } from "./stripe-retry-helpers.ts";

type Helpers = ReturnType<typeof stripeRetryHelpers>;

// The portal's retry of an order in dunning with the Stripe processor: an on-session PaymentIntent
// that may ask for 3-D Secure. The order is paid only once Stripe says the money moved, exactly
// once, whichever of Stripe's events (delivered over real HTTP to the inbox) and a read of the
// payment's status comes first.

let ctx: TestContext;
let stripe: StripeStandIn;
let sdk: Stripe;
let close: () => Promise<void>;

beforeAll(async () => {
  ({ ctx, stripe, sdk, close } = await openStripeContext({ webhookPath: WEBHOOK_URL }));
});
afterEach(async () => {
  stripe.setDelivery("immediate");
  await stripe.delivered();
  stripe.assertNoViolations();
});
afterAll(() => close());

let confirmationToken: Helpers["confirmationToken"];
let pastDueOrder: Helpers["pastDueOrder"];
let retry: Helpers["retry"];
let paymentStatus: Helpers["paymentStatus"];
let waitingRetry: Helpers["waitingRetry"];
let retries: Helpers["retries"];
let paidEvents: Helpers["paidEvents"];
beforeAll(() => {
  ({ confirmationToken, pastDueOrder, retry, paymentStatus, waitingRetry, retries, paidEvents } = stripeRetryHelpers(ctx, sdk));
});

describe("POST /v1/customer-portal/orders/{id}/confirm-payment with 3-D Secure", () => {
  it("answers requires_action with an on-session PaymentIntent's client secret; Stripe's events pay the order once authenticated", async () => {
    const { order, subscriptionId, portal } = await pastDueOrder("retry-3ds-events@example.com");
    const { answer, intentId } = await waitingRetry(portal, order.id);
    expectReferenceResponse("customer_portal:orders:confirm_retry_payment", 200, answer);
    const created = stripe.requests.filter((request) => request.method === "POST" && request.path === "/v1/payment_intents").at(-1)!;
    expect(created.params).toMatchObject({
      confirm: "true",
      amount: String(order.total_amount),
      setup_future_usage: "off_session",
      metadata: { order_id: order.id, payment_trigger: "retry_customer" },
    });
    expect(created.params).not.toHaveProperty("off_session");
    // Nothing is paid on the browser's word: the attempt waits, the order and subscription as they were.
    expect(await retries(order.id)).toEqual([["pending", intentId, null]]);
    expect(await paymentStatus(portal, order.id)).toEqual({ status: "pending", error: null });
    expect(await orderOf(ctx, order.id)).toMatchObject({ status: "pending" });

    await stripe.authenticate(intentId, "succeeded");
    await stripe.delivered();
    await runEventJobs(ctx);
    expect(await orderOf(ctx, order.id)).toMatchObject({ status: "paid", next_payment_attempt_at: null });
    const subscription = await subscriptionOf(ctx, subscriptionId);
    expect(subscription.status).toBe("active");
    const card = await ctx.deps.db
      .selectFrom("payment_methods")
      .selectAll()
      .where("id", "=", subscription.payment_method_id!)
      .executeTakeFirstOrThrow();
    expect(card).toMatchObject({ last4: "3184", processor_reference: (await sdk.paymentIntents.retrieve(intentId)).payment_method });
    expect(await retries(order.id)).toEqual([["succeeded", intentId, null]]);
    expect(await paymentStatus(portal, order.id)).toEqual({ status: "succeeded", error: null });
    expect(await paidEvents(order.id)).toBe(1);
  });

  it("is settled by the status read when Stripe's events are late; the events, twice, change nothing", async () => {
    const { order, subscriptionId, portal } = await pastDueOrder("retry-3ds-read@example.com");
    const { intentId } = await waitingRetry(portal, order.id);
    stripe.setDelivery("held");
    await stripe.authenticate(intentId, "succeeded");
    expect(await paymentStatus(portal, order.id)).toEqual({ status: "succeeded", error: null });
    expect(await orderOf(ctx, order.id)).toMatchObject({ status: "paid" });
    expect(await subscriptionOf(ctx, subscriptionId)).toMatchObject({ status: "active" });

    expect(await stripe.release({ twice: true })).toEqual([202, 202, 202, 202]);
    await runEventJobs(ctx);
    expect(await retries(order.id)).toEqual([["succeeded", intentId, null]]);
    expect(await paidEvents(order.id)).toBe(1);
    const saved = await ctx.deps.db.selectFrom("payment_methods").select("id").where("customer_id", "=", order.customer_id).execute();
    // The trial's card and the one that paid.
    expect(saved).toHaveLength(2);
  });

  it("records a failed authentication as the customer's failed attempt, leaving dunning as it was", async () => {
    const { order, subscriptionId, portal } = await pastDueOrder("retry-3ds-failed@example.com");
    const { intentId } = await waitingRetry(portal, order.id);
    await stripe.authenticate(intentId, "failed");
    await stripe.delivered();
    await runEventJobs(ctx);
    const message = "We are unable to authenticate your payment method. Please choose a different payment method and try again.";
    expect(await retries(order.id)).toEqual([["failed", intentId, message]]);
    expect(await paymentStatus(portal, order.id)).toEqual({ status: "failed", error: message });
    expect(await orderOf(ctx, order.id)).toMatchObject({ status: "pending", next_payment_attempt_at: order.next_payment_attempt_at });
    expect(await subscriptionOf(ctx, subscriptionId)).toMatchObject({ status: "past_due" });
  });

  it("cancels a retry still waiting for authentication before charging another card: the customer is charged once", async () => {
    const { order, subscriptionId, portal } = await pastDueOrder("retry-3ds-abandoned@example.com");
    const { intentId } = await waitingRetry(portal, order.id);
    const second = await retry(portal, order.id, "pm_card_visa");
    expect(second.json()).toEqual({ status: "succeeded", client_secret: null, error: null });
    expect((await sdk.paymentIntents.retrieve(intentId)).status).toBe("canceled");
    // The abandoned challenge can no longer move money.
    await expect(stripe.authenticate(intentId, "succeeded")).rejects.toThrow();
    await stripe.delivered();
    await runEventJobs(ctx);
    const [first, paid] = await retries(order.id);
    expect(first).toEqual(["failed", intentId, "The payment was canceled."]);
    expect(paid).toEqual(["succeeded", expect.stringMatching(/^pi_/), null]);
    expect(await subscriptionOf(ctx, subscriptionId)).toMatchObject({ status: "active" });
    expect(await paidEvents(order.id)).toBe(1);
  });

  it("asks for 3-D Secure on a saved card too (added in the portal with its own authentication), then pays with it", async () => {
    const { order, subscriptionId, portal } = await pastDueOrder("retry-3ds-saved@example.com");
    const methods = "/v1/customer-portal/customers/me/payment-methods";
    const added = await ctx.request({
      method: "POST",
      url: methods,
      token: portal,
      payload: {
        confirmation_token_id: await confirmationToken("pm_card_authenticationRequired"),
        set_default: false,
        return_url: "https://shop.test",
      },
    });
    const setupSecret = added.json<{ client_secret: string }>().client_secret;
    const setupIntentId = setupSecret.slice(0, setupSecret.indexOf("_secret_"));
    await stripe.authenticate(setupIntentId, "succeeded");
    const confirmed = await ctx.request({
      method: "POST",
      url: `${methods}/confirm`,
      token: portal,
      payload: { setup_intent_id: setupIntentId, set_default: false },
    });
    expect(confirmed.statusCode, confirmed.body).toBe(201);
    const cardId = confirmed.json<{ payment_method: { id: string } }>().payment_method.id;

    const response = await ctx.request({
      method: "POST",
      url: `/v1/customer-portal/orders/${order.id}/confirm-payment`,
      token: portal,
      payload: { payment_method_id: cardId },
    });
    expect(response.json()).toMatchObject({ status: "requires_action", client_secret: expect.stringMatching(/^pi_/) });
    const secret = response.json<{ client_secret: string }>().client_secret;
    await stripe.authenticate(secret.slice(0, secret.indexOf("_secret_")), "succeeded");
    await stripe.delivered();
    await runEventJobs(ctx);
    expect(await orderOf(ctx, order.id)).toMatchObject({ status: "paid" });
    expect(await subscriptionOf(ctx, subscriptionId)).toMatchObject({ status: "active", payment_method_id: cardId });
    expect((await paymentsOf(ctx, order.id)).at(-1)).toMatchObject({ status: "succeeded", payment_method_id: cardId });
  });

  it("cancels a retry still waiting when dunning charges the order again, so the two never both take the money", async () => {
    const { token, order, portal } = await pastDueOrder("retry-3ds-dunning@example.com");
    const { intentId } = await waitingRetry(portal, order.id);
    const advanced = await ctx.request({ method: "POST", url: "/v1/test-clock/advance", token, payload: { seconds: 3 * 86_400 } });
    expect(advanced.json()).toMatchObject({ payment_retries: 1 });
    expect((await sdk.paymentIntents.retrieve(intentId)).status).toBe("canceled");
    const payments = await paymentsOf(ctx, order.id);
    expect(payments.map((payment) => [payment.trigger, payment.status])).toEqual([
      ["subscription_cycle", "failed"],
      ["retry_customer", "failed"],
      ["retry_dunning", "failed"],
    ]);
    expect(payments[1]).toMatchObject({ processor_reference: intentId, decline_message: "The payment was canceled." });
  });
});
