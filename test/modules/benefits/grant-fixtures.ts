import type { TestContext } from "../../helpers/context.ts";
import { createProduct } from "../../helpers/factories.ts";
import { buyThroughCheckout } from "../subscriptions/subscription-helpers.ts";

export const LICENSE = {
  type: "license_keys",
  description: "Pro license",
  properties: { prefix: "PRO", expires: null, activations: null, limit_usage: null },
};
export const NOTE = { type: "custom", description: "Private chat", properties: { note: "Join us" } };

/**
 * A one-time product with a license key and a custom benefit, and a monthly plan with a custom
 * benefit, each bought through a checkout by its own buyer (the clock a minute apart), so each
 * buyer holds granted grants made by a real purchase.
 */
export async function buyGrants(ctx: TestContext, organizationId: string, checkoutToken: string, prefix = "buyer") {
  const oneTime = await createProduct(ctx.deps, organizationId, {
    product: { name: "Lifetime" },
    prices: [{ amount_type: "fixed", price_amount: 4000 }],
    benefits: [LICENSE, NOTE],
  });
  const plan = await createProduct(ctx.deps, organizationId, {
    product: { name: "Monthly club", recurring_interval: "month", recurring_interval_count: 1 },
    prices: [{ amount_type: "fixed", price_amount: 900 }],
    benefits: [{ type: "custom", description: "Club perks", properties: { note: null } }],
  });
  const order = await buyThroughCheckout(ctx, checkoutToken, oneTime.product.id, {
    buyer: { customer_email: `${prefix}-once@example.com` },
  });
  ctx.clock.advance(60_000);
  const subscription = await buyThroughCheckout(ctx, checkoutToken, plan.product.id, {
    buyer: { customer_email: `${prefix}-sub@example.com` },
  });
  ctx.clock.advance(60_000);
  return { oneTime, plan, order: order.checkout, subscription: subscription.checkout };
}
