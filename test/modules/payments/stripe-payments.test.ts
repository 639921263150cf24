import type { JobHelpers } from "graphile-worker";
import type Stripe from "stripe";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { PaymentProcessor } from "../../../src/adapters/payment-processors/payment-processor.ts";
import { settleCheckoutTask } from "../../../src/modules/checkouts/checkouts.tasks.ts";
import { createStripeProcessor } from "../../../src/adapters/payment-processors/stripe.processor.ts";
import { buildServices } from "../../../src/services.ts";
import type { TestContext } from "../../helpers/context.ts";
import {
  createCustomerSessionToken,
  createOrganization,
  createOrganizationToken,
  createProduct,
  registerForTax,
} from "../../helpers/factories.ts";
import type { StripeStandIn } from "../../helpers/stripe-stand-in/stand-in.ts";
import { openStripeContext } from "../../helpers/stripe-stand-in/stripe-context.ts";
import { FR_ADDRESS, openCheckoutThroughApi } from "../checkouts/checkout-helpers.ts";

// Every flow of the Stripe adapter end to end over HTTP, against the local Stripe stand-in (which
// fails the test on any request Stripe's OpenAPI document would refuse).

let ctx: TestContext;
let stripe: StripeStandIn;
let sdk: Stripe;
let close: () => Promise<void>;
let token: string;
let orgId: string;
let oneTime: string;
let monthly: string;

beforeAll(async () => {
  ({ ctx, stripe, sdk, close } = await openStripeContext());
  const org = await createOrganization(ctx.deps);
  orgId = org.id;
  await registerForTax(ctx.deps, org.id);
  token = await createOrganizationToken(ctx.deps, org.id, [
    "checkouts:write",
    "orders:read",
    "refunds:write",
    "refunds:read",
    "subscriptions:write",
  ]);
  oneTime = (await createProduct(ctx.deps, org.id)).product.id;
  monthly = (
    await createProduct(ctx.deps, org.id, {
      product: { recurring_interval: "month", recurring_interval_count: 1, trial_interval: "day", trial_interval_count: 7 },
      prices: [{ amount_type: "fixed", price_amount: 1500 }],
    })
  ).product.id;
});
afterEach(() => stripe.assertNoViolations());
afterAll(() => close());

const BUYER = {
  customer_email: "buyer@example.com",
  customer_name: "Bea Buyer",
  customer_billing_address: { ...FR_ADDRESS, country: "FR" as const },
};

/** A confirmation token as Stripe.js would make it in the browser, for one of Stripe's test payment methods. */
const confirmationToken = async (paymentMethod: string) =>
  (await sdk.testHelpers.confirmationTokens.create({ payment_method: paymentMethod })).id;

async function confirm(productId: string, paymentMethod: string, buyer: Record<string, unknown> = BUYER) {
  const session = await openCheckoutThroughApi(ctx, token, { products: [productId] });
  const response = await ctx.request({
    method: "POST",
    url: `/v1/checkouts/client/${session.client_secret}/confirm`,
    payload: { ...buyer, confirmation_token_id: await confirmationToken(paymentMethod) },
  });
  return { session, response };
}

const ordersOf = (checkoutId: string) => ctx.deps.db.selectFrom("orders").selectAll().where("checkout_id", "=", checkoutId).execute();
const paymentsOf = (orderId: string) => ctx.deps.db.selectFrom("payments").selectAll().where("order_id", "=", orderId).execute();
const statusOf = async (checkoutId: string) =>
  (await ctx.deps.db.selectFrom("checkouts").select("status").where("id", "=", checkoutId).executeTakeFirstOrThrow()).status;
const intentsCreated = () => stripe.requests.filter((request) => request.method === "POST" && request.path === "/v1/payment_intents");

describe("a one-time purchase paid through Stripe", () => {
  it("charges one PaymentIntent with the checkout in its metadata, then completes the order with its payment", async () => {
    const before = intentsCreated().length;
    const { session, response } = await confirm(oneTime, "pm_card_visa");
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toMatchObject({ status: "confirmed", customer_session_token: expect.stringMatching(/^polar_cst_/) });
    expect(await statusOf(session.id)).toBe("succeeded");
    const created = intentsCreated().slice(before);
    expect(created).toHaveLength(1);
    expect(created[0]!.params).toMatchObject({
      confirm: "true",
      metadata: { checkout_id: session.id, organization_id: orgId },
    });
    expect(created[0]!.idempotencyKey).toMatch(new RegExp(`^checkout:${session.id}:`));
    const [order] = await ordersOf(session.id);
    expect(order).toMatchObject({ status: "paid" });
    const [payment] = await paymentsOf(order!.id);
    expect(payment).toMatchObject({ status: "succeeded", processor_reference: expect.stringMatching(/^pi_/), amount: order!.total_amount });
    const intent = await sdk.paymentIntents.retrieve(payment!.processor_reference!);
    expect([intent.status, intent.amount, intent.currency]).toEqual(["succeeded", order!.total_amount, order!.currency]);
    // The buyer's Stripe customer is kept for their next payments.
    const customer = await ctx.deps.db.selectFrom("customers").selectAll().where("id", "=", order!.customer_id).executeTakeFirstOrThrow();
    expect(customer.processor_customer_reference).toBe(intent.customer);
    // And shown on the session, as the hosted service's processor metadata has it.
    const read = await ctx.request({ method: "GET", url: `/v1/checkouts/client/${session.client_secret}` });
    expect(read.json().payment_processor_metadata).toEqual({ publishable_key: stripe.publishableKey, customer_id: intent.customer });
  });

  it("answers a declined card with Stripe's message and reopens the session, writing no order", async () => {
    const { session, response } = await confirm(oneTime, "pm_card_chargeDeclined");
    expect(response.statusCode, response.body).toBe(400);
    expect(response.json()).toEqual({ error: "PaymentError", detail: "Your card was declined." });
    expect(await statusOf(session.id)).toBe("open");
    expect(await ordersOf(session.id)).toEqual([]);
  });

  it("waits for 3-D Secure: the confirm answers the intent's client secret, the order exists only once Stripe says the money moved", async () => {
    const { session, response } = await confirm(oneTime, "pm_card_authenticationRequired");
    expect(response.statusCode, response.body).toBe(200);
    const waiting = response.json();
    expect(waiting).toMatchObject({ status: "confirmed", customer_session_token: null });
    expect(waiting.payment_processor_metadata).toMatchObject({
      intent_status: "requires_action",
      intent_client_secret: expect.any(String),
      customer_id: expect.stringMatching(/^cus_/),
    });
    expect(await ordersOf(session.id)).toEqual([]);

    const settle = settleCheckoutTask(ctx.services.checkoutConfirmation);
    // Not authenticated yet: the recovery job leaves it waiting, charging nothing new.
    await settle({ checkoutId: session.id, confirmationToken: null }, {} as JobHelpers);
    expect(await statusOf(session.id)).toBe("confirmed");
    await stripe.authenticate(waiting.payment_processor_metadata.intent_id, "succeeded");
    await settle({ checkoutId: session.id, confirmationToken: null }, {} as JobHelpers);
    expect(await statusOf(session.id)).toBe("succeeded");
    expect(await ordersOf(session.id)).toHaveLength(1);
  });
});

describe("a crash between Stripe's answer and the commit", () => {
  it("is reconciled by the recovery job from Stripe's answer to the same idempotency key: one charge, one order", async () => {
    const session = await openCheckoutThroughApi(ctx, token, { products: [oneTime] });
    const paymentToken = await confirmationToken("pm_card_visa");
    const real = ctx.services.payments;
    // The process dies right after Stripe answered: nothing of the answer is committed.
    const dying: PaymentProcessor = {
      ...real,
      charge: async (request) => {
        await real.charge(request);
        throw new Error("process killed");
      },
    };
    const before = intentsCreated().length;
    await expect(
      buildServices(ctx.deps, { payments: dying }).checkoutClient.confirm(session.client_secret, {
        ...BUYER,
        confirmation_token_id: paymentToken,
      }),
    ).rejects.toThrow("process killed");
    expect(await statusOf(session.id)).toBe("confirmed");

    await settleCheckoutTask(ctx.services.checkoutConfirmation)(
      { checkoutId: session.id, confirmationToken: paymentToken },
      {} as JobHelpers,
    );
    expect(await statusOf(session.id)).toBe("succeeded");
    const requests = intentsCreated().slice(before);
    expect(requests).toHaveLength(2);
    expect(new Set(requests.map((request) => request.idempotencyKey)).size).toBe(1);
    const intents = await sdk.paymentIntents.list({ limit: 100 });
    expect(intents.data.filter((intent) => intent.metadata.checkout_id === session.id)).toHaveLength(1);
    expect(await ordersOf(session.id)).toHaveLength(1);
  });
});

const advanceDays = async (days: number) => {
  const response = await ctx.request({ method: "POST", url: "/v1/test-clock/advance", token, payload: { seconds: days * 86_400 } });
  expect(response.statusCode, response.body).toBe(200);
  return response.json<{ renewals: number; payment_retries: number }>();
};
const subscriptionOf = (checkoutId: string) =>
  ctx.deps.db.selectFrom("subscriptions").selectAll().where("checkout_id", "=", checkoutId).executeTakeFirstOrThrow();
const subscriptionOrders = (subscriptionId: string) =>
  ctx.deps.db.selectFrom("orders").selectAll().where("subscription_id", "=", subscriptionId).orderBy("created_at").execute();

describe("a subscription with a trial, renewed through Stripe", () => {
  it("saves the card with a SetupIntent at checkout, then charges it off-session when the trial ends", async () => {
    const setupsBefore = stripe.requests.filter((request) => request.path === "/v1/setup_intents").length;
    const intentsBefore = intentsCreated().length;
    const { session, response } = await confirm(monthly, "pm_card_visa", { ...BUYER, customer_email: "trial@example.com" });
    expect(response.statusCode, response.body).toBe(200);
    expect(stripe.requests.filter((request) => request.path === "/v1/setup_intents").length).toBe(setupsBefore + 1);
    expect(intentsCreated().length).toBe(intentsBefore);
    const subscription = await subscriptionOf(session.id);
    expect(subscription.status).toBe("trialing");
    const method = await ctx.deps.db
      .selectFrom("payment_methods")
      .selectAll()
      .where("id", "=", subscription.payment_method_id!)
      .executeTakeFirstOrThrow();
    expect(method).toMatchObject({ processor_reference: expect.stringMatching(/^pm_/), brand: "visa", last4: "4242" });
    expect(method.processor_customer_reference).toMatch(/^cus_/);

    await advanceDays(8);
    const renewal = intentsCreated().slice(intentsBefore);
    expect(renewal).toHaveLength(1);
    expect(renewal[0]!.params).toMatchObject({
      off_session: "true",
      confirm: "true",
      payment_method: method.processor_reference,
      customer: method.processor_customer_reference,
      metadata: { payment_trigger: "subscription_cycle", organization_id: orgId },
    });
    const orders = await subscriptionOrders(subscription.id);
    expect(orders.map((order) => [order.billing_reason, order.status])).toEqual([
      ["subscription_create", "paid"],
      ["subscription_cycle", "paid"],
    ]);
    expect((await paymentsOf(orders[1]!.id)).map((payment) => payment.status)).toEqual(["succeeded"]);
  });

  it("follows a declined renewal into past due, and recovers when the customer pays with a new card in the portal", async () => {
    const { session } = await confirm(monthly, "pm_card_chargeCustomerFail", { ...BUYER, customer_email: "dunning@example.com" });
    expect(await statusOf(session.id)).toBe("succeeded");
    const subscription = await subscriptionOf(session.id);
    await advanceDays(8);
    expect((await subscriptionOf(session.id)).status).toBe("past_due");
    const [, due] = await subscriptionOrders(subscription.id);
    expect(due).toMatchObject({ status: "pending" });
    expect((await paymentsOf(due!.id))[0]).toMatchObject({
      trigger: "subscription_cycle",
      status: "failed",
      decline_message: "Your card was declined.",
    });

    const portal = await createCustomerSessionToken(ctx.deps, subscription.customer_id);
    const retried = await ctx.request({
      method: "POST",
      url: `/v1/customer-portal/orders/${due!.id}/confirm-payment`,
      token: portal,
      payload: { confirmation_token_id: await confirmationToken("pm_card_visa") },
    });
    expect(retried.statusCode, retried.body).toBe(200);
    expect(retried.json()).toEqual({ status: "succeeded", client_secret: null, error: null });
    expect((await subscriptionOf(session.id)).status).toBe("active");
    expect((await subscriptionOrders(subscription.id))[1]).toMatchObject({ status: "paid" });
  });
});

describe("refunds through Stripe", () => {
  it("gives the money back with a Stripe refund of the order's PaymentIntent, keyed by the refund", async () => {
    const { session } = await confirm(oneTime, "pm_card_visa", { ...BUYER, customer_email: "refund@example.com" });
    const [order] = await ordersOf(session.id);
    const response = await ctx.request({
      method: "POST",
      url: "/v1/refunds/",
      token,
      payload: { order_id: order!.id, reason: "customer_request", amount: 1000 },
    });
    expect(response.statusCode, response.body).toBe(201);
    const refund = response.json();
    expect(refund).toMatchObject({ status: "succeeded", amount: 1000 });
    const [payment] = await paymentsOf(order!.id);
    const created = stripe.requests.filter((request) => request.method === "POST" && request.path === "/v1/refunds").at(-1)!;
    expect(created.params).toMatchObject({ payment_intent: payment!.processor_reference, metadata: { refund_id: refund.id } });
    expect(created.idempotencyKey).toBe(`refund:${refund.id}`);
    expect((await ordersOf(session.id))[0]).toMatchObject({ refunded_amount: 1000 });
  });
});

describe("a renewal whose process dies between Stripe's answer and the commit", () => {
  it("is settled by the collect recovery from Stripe's answer to the same attempt: charged once, paid once", async () => {
    const { session } = await confirm(monthly, "pm_card_visa", { ...BUYER, customer_email: "renewal-crash@example.com" });
    const subscription = await subscriptionOf(session.id);
    const real = ctx.services.payments;
    const dying: PaymentProcessor = {
      ...real,
      chargeOffSession: async (request) => {
        await real.chargeOffSession(request);
        throw new Error("process killed");
      },
    };
    // The sweep runs outside any request, on the real clock: move it past the trial's end, which
    // the purchase stamped on the organization's clock (advanced by the tests above).
    const { offset_seconds: offsetSeconds } = (await ctx.request({ method: "GET", url: "/v1/test-clock", token })).json<{
      offset_seconds: number;
    }>();
    ctx.clock.advance((8 * 86_400 + offsetSeconds) * 1000);
    await expect(buildServices(ctx.deps, { payments: dying }).subscriptionRenewals.sweep({ organizationId: orgId })).rejects.toThrow(
      "process killed",
    );
    const [, due] = await subscriptionOrders(subscription.id);
    expect(due).toMatchObject({ status: "pending" });
    expect(await paymentsOf(due!.id)).toEqual([]);

    await ctx.services.subscriptionRenewals.collect(due!.id, "subscription_cycle");
    expect((await subscriptionOrders(subscription.id))[1]).toMatchObject({ status: "paid" });
    expect((await paymentsOf(due!.id)).map((payment) => payment.status)).toEqual(["succeeded"]);
    const charged = await sdk.paymentIntents.list({
      customer: (await paymentMethodOf(subscription.payment_method_id!)).processor_customer_reference!,
      limit: 100,
    });
    expect(charged.data.filter((intent) => intent.metadata.order_id === due!.id)).toHaveLength(1);
  });
});

const paymentMethodOf = (id: string) =>
  ctx.deps.db.selectFrom("payment_methods").selectAll().where("id", "=", id).executeTakeFirstOrThrow();

describe("Stripe unreachable", () => {
  it("answers 502 and settles nothing: the session stays confirmed for the recovery job to ask again", async () => {
    const session = await openCheckoutThroughApi(ctx, token, { products: [oneTime] });
    const paymentToken = await confirmationToken("pm_card_visa");
    const unreachable = createStripeProcessor({ ...stripeConfig(), apiUrl: new URL("http://127.0.0.1:9") });
    const services = buildServices(ctx.deps, { payments: unreachable });
    await expect(
      services.checkoutClient.confirm(session.client_secret, { ...BUYER, confirmation_token_id: paymentToken }),
    ).rejects.toMatchObject({
      statusCode: 502,
      error: "PaymentProcessorUnavailable",
    });
    expect(await statusOf(session.id)).toBe("confirmed");
    expect(await ordersOf(session.id)).toEqual([]);
    // Back: the recovery job charges it, once.
    await settleCheckoutTask(ctx.services.checkoutConfirmation)(
      { checkoutId: session.id, confirmationToken: paymentToken },
      {} as JobHelpers,
    );
    expect(await statusOf(session.id)).toBe("succeeded");
  });
});

function stripeConfig() {
  const payments = ctx.deps.config.payments;
  if (payments.processor !== "stripe") throw new Error("the test app runs Stripe");
  return payments.stripe;
}

describe("saved cards in the portal", () => {
  it("adds a card with a SetupIntent on the buyer's Stripe customer, and deleting it detaches it at Stripe", async () => {
    const { session } = await confirm(oneTime, "pm_card_visa", { ...BUYER, customer_email: "portal-cards@example.com" });
    const [order] = await ordersOf(session.id);
    const portal = await createCustomerSessionToken(ctx.deps, order!.customer_id);
    const added = await ctx.request({
      method: "POST",
      url: "/v1/customer-portal/customers/me/payment-methods",
      token: portal,
      payload: {
        confirmation_token_id: await confirmationToken("pm_card_mastercard"),
        set_default: false,
        return_url: "https://shop.test",
      },
    });
    expect(added.statusCode, added.body).toBe(201);
    const saved = await paymentMethodOf(added.json().payment_method.id);
    const customer = await ctx.deps.db.selectFrom("customers").selectAll().where("id", "=", order!.customer_id).executeTakeFirstOrThrow();
    expect(saved.processor_customer_reference).toBe(customer.processor_customer_reference);
    expect((await sdk.paymentMethods.retrieve(saved.processor_reference)).customer).toBe(customer.processor_customer_reference);

    const deleted = await ctx.request({
      method: "DELETE",
      url: `/v1/customer-portal/customers/me/payment-methods/${saved.id}`,
      token: portal,
    });
    expect(deleted.statusCode, deleted.body).toBe(204);
    expect((await sdk.paymentMethods.retrieve(saved.processor_reference)).customer).toBeNull();
  });
});
