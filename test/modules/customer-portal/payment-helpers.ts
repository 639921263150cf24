import type { TestContext } from "../../helpers/context.ts";
import { createCustomerSessionToken, createProduct } from "../../helpers/factories.ts";
import { buyThroughCheckout } from "../subscriptions/subscription-helpers.ts";

/**
 * A monthly subscription bought with `card`, renewed once by the sweep at its period end: with
 * tok_chargeCustomerFail the renewal is declined, leaving the subscription past_due and its order
 * pending in dunning. The session is opened after the clock moved, so it is live.
 */
export async function renewedSubscription(
  ctx: TestContext,
  org: { id: string },
  checkoutToken: string,
  email: string,
  card = "tok_chargeCustomerFail",
) {
  const plan = await createProduct(ctx.deps, org.id, {
    product: { name: `Plan of ${email}`, recurring_interval: "month", recurring_interval_count: 1 },
    prices: [{ amount_type: "fixed", price_amount: 2000 }],
  });
  const { checkout } = await buyThroughCheckout(ctx, checkoutToken, plan.product.id, { card, buyer: { customer_email: email } });
  const subscription = await ctx.deps.db
    .selectFrom("subscriptions")
    .selectAll()
    .where("id", "=", checkout.subscription_id)
    .executeTakeFirstOrThrow();
  ctx.clock.set(subscription.current_period_end);
  await ctx.services.subscriptionRenewals.sweep({ organizationId: org.id });
  const renewal = await ctx.deps.db
    .selectFrom("orders")
    .selectAll()
    .where("subscription_id", "=", subscription.id)
    .where("billing_reason", "=", "subscription_cycle")
    .executeTakeFirstOrThrow();
  return {
    customerId: checkout.customer_id,
    subscriptionId: subscription.id,
    orderId: renewal.id,
    session: await createCustomerSessionToken(ctx.deps, checkout.customer_id),
  };
}

export const subscriptionOf = (ctx: TestContext, id: string) =>
  ctx.deps.db.selectFrom("subscriptions").selectAll().where("id", "=", id).executeTakeFirstOrThrow();

export const orderOf = (ctx: TestContext, id: string) =>
  ctx.deps.db.selectFrom("orders").selectAll().where("id", "=", id).executeTakeFirstOrThrow();

export const paymentsOf = (ctx: TestContext, orderId: string) =>
  ctx.deps.db.selectFrom("payments").selectAll().where("order_id", "=", orderId).orderBy("created_at").execute();
