import { sql } from "kysely";
import type Stripe from "stripe";
import { expect } from "vitest";
import type { TestContext } from "../../helpers/context.ts";
import {
  createCustomerSessionToken,
  createOrganization,
  createOrganizationToken,
  createProduct,
  registerForTax,
} from "../../helpers/factories.ts";
import { FR_ADDRESS, openCheckoutThroughApi } from "../checkouts/checkout-helpers.ts";
import { paymentsOf } from "./payment-helpers.ts";

/** What the tests of the portal's retry on Stripe do: an order in dunning, a retry, its status, what it recorded. */
export function stripeRetryHelpers(ctx: TestContext, sdk: Stripe) {
  const confirmationToken = async (paymentMethod: string) =>
    (await sdk.testHelpers.confirmationTokens.create({ payment_method: paymentMethod })).id;

  /**
   * A trial bought with a card that saves fine and declines every charge, its renewal declined by
   * the organization's test clock: the subscription past due, its order pending in dunning. Each in
   * an organization of its own, so each test's clock starts where the trial does.
   */
  async function pastDueOrder(email: string) {
    const org = await createOrganization(ctx.deps);
    await registerForTax(ctx.deps, org.id);
    const token = await createOrganizationToken(ctx.deps, org.id, ["checkouts:write", "subscriptions:write"]);
    const monthly = (
      await createProduct(ctx.deps, org.id, {
        product: { recurring_interval: "month", recurring_interval_count: 1, trial_interval: "day", trial_interval_count: 7 },
        prices: [{ amount_type: "fixed", price_amount: 1500 }],
      })
    ).product.id;
    const session = await openCheckoutThroughApi(ctx, token, { products: [monthly] });
    const bought = await ctx.request({
      method: "POST",
      url: `/v1/checkouts/client/${session.client_secret}/confirm`,
      payload: {
        customer_email: email,
        customer_name: "Bea Buyer",
        customer_billing_address: { ...FR_ADDRESS, country: "FR" },
        confirmation_token_id: await confirmationToken("pm_card_chargeCustomerFail"),
      },
    });
    expect(bought.statusCode, bought.body).toBe(200);
    const advanced = await ctx.request({ method: "POST", url: "/v1/test-clock/advance", token, payload: { seconds: 8 * 86_400 } });
    expect(advanced.statusCode, advanced.body).toBe(200);
    const subscription = await ctx.deps.db
      .selectFrom("subscriptions")
      .selectAll()
      .where("checkout_id", "=", session.id)
      .executeTakeFirstOrThrow();
    expect(subscription.status).toBe("past_due");
    const order = await ctx.deps.db
      .selectFrom("orders")
      .selectAll()
      .where("subscription_id", "=", subscription.id)
      .where("billing_reason", "=", "subscription_cycle")
      .executeTakeFirstOrThrow();
    return { token, subscriptionId: subscription.id, order, portal: await createCustomerSessionToken(ctx.deps, subscription.customer_id) };
  }

  const retry = async (portal: string, orderId: string, paymentMethod: string) =>
    ctx.request({
      method: "POST",
      url: `/v1/customer-portal/orders/${orderId}/confirm-payment`,
      token: portal,
      payload: { confirmation_token_id: await confirmationToken(paymentMethod) },
    });

  const paymentStatus = async (portal: string, orderId: string) => {
    const response = await ctx.request({ method: "GET", url: `/v1/customer-portal/orders/${orderId}/payment-status`, token: portal });
    expect(response.statusCode, response.body).toBe(200);
    return response.json<{ status: string; error: string | null }>();
  };

  /** A retry answered `requires_action`: the PaymentIntent its client secret belongs to. */
  async function waitingRetry(portal: string, orderId: string) {
    const response = await retry(portal, orderId, "pm_card_authenticationRequired");
    expect(response.statusCode, response.body).toBe(200);
    const answer = response.json<{ status: string; client_secret: string; error: null }>();
    expect(answer).toEqual({ status: "requires_action", client_secret: expect.stringMatching(/^pi_\w+_secret_/), error: null });
    return { answer, intentId: answer.client_secret.slice(0, answer.client_secret.indexOf("_secret_")) };
  }

  const retries = async (orderId: string) =>
    (await paymentsOf(ctx, orderId))
      .filter((payment) => payment.trigger === "retry_customer")
      .map((payment) => [payment.status, payment.processor_reference, payment.decline_message]);

  /** The `order.paid` webhook events recorded for the order. */
  const paidEvents = async (orderId: string) =>
    (
      await ctx.deps.db
        .selectFrom("webhook_events")
        .select("type")
        .where("type", "=", "order.paid")
        .where(sql<boolean>`payload->'data'->>'id' = ${orderId}`)
        .execute()
    ).length;

  return { confirmationToken, pastDueOrder, retry, paymentStatus, waitingRetry, retries, paidEvents };
}
