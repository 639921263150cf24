import { expect } from "vitest";
import type { TestContext } from "../../helpers/context.ts";
import { createProduct, registerForTax } from "../../helpers/factories.ts";
import { buyThroughCheckout } from "../subscriptions/subscription-helpers.ts";
import type { OrderRow } from "../../../src/modules/orders/orders.table.ts";

/**
 * A one-time product bought through the API with a sandbox card: the order is paid and its payment
 * recorded, as a storefront's purchase leaves them. `price` is the pre-tax price; the organization
 * is registered for tax (`registerForTax`), so a French buyer pays 20% VAT on top, a US buyer none.
 */
export async function paidOrder(
  ctx: TestContext,
  organizationId: string,
  checkoutToken: string,
  options: {
    price?: number;
    email?: string;
    country?: "FR" | "US";
    /** The checkout's locale, which the order's documents follow. */
    locale?: string;
    benefits?: NonNullable<Parameters<typeof createProduct>[2]>["benefits"];
  } = {},
): Promise<OrderRow> {
  await registerForTax(ctx.deps, organizationId);
  const { product } = await createProduct(ctx.deps, organizationId, {
    prices: [{ amount_type: "fixed", price_amount: options.price ?? 2500 }],
    ...(options.benefits ? { benefits: options.benefits } : {}),
  });
  const buyer: Record<string, unknown> = { customer_email: options.email ?? `buyer-${Math.random().toString(16).slice(2)}@example.com` };
  if (options.country === "US")
    buyer.customer_billing_address = { country: "US", line1: "1 Main St", city: "New York", postal_code: "10001", state: "US-NY" };
  const { checkout } = await buyThroughCheckout(ctx, checkoutToken, product.id, {
    buyer,
    ...(options.locale ? { checkout: { locale: options.locale } } : {}),
  });
  const order = await ctx.deps.db.selectFrom("orders").selectAll().where("checkout_id", "=", checkout.id).executeTakeFirstOrThrow();
  expect(order.status).toBe("paid");
  return order;
}

export const orderRow = (ctx: TestContext, id: string) =>
  ctx.deps.db.selectFrom("orders").selectAll().where("id", "=", id).executeTakeFirstOrThrow();

/** Row counts of what a refund writes, to prove a refused request wrote nothing. */
export async function refundWrites(ctx: TestContext) {
  const [refunds, events, jobs] = await Promise.all([
    ctx.deps.db
      .selectFrom("refunds")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .executeTakeFirstOrThrow(),
    ctx.deps.db
      .selectFrom("webhook_events")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .executeTakeFirstOrThrow(),
    ctx.deps.db
      .selectFrom("orders")
      .select((eb) => [eb.fn.sum<number>("refunded_amount").as("amount"), eb.fn.sum<number>("refunded_tax_amount").as("tax")])
      .executeTakeFirstOrThrow(),
  ]);
  return { refunds: Number(refunds.n), events: Number(events.n), refunded: Number(jobs.amount), refundedTax: Number(jobs.tax) };
}

/** `POST /v1/refunds/` of `amount` cents of an order, which must succeed (201); the refund as answered. */
export async function createRefund<T = { id: string; status: string }>(
  ctx: TestContext,
  token: string,
  orderId: string,
  amount: number,
): Promise<T> {
  const response = await ctx.request({
    method: "POST",
    url: "/v1/refunds/",
    token,
    payload: { order_id: orderId, reason: "other", amount },
  });
  expect(response.statusCode, response.body).toBe(201);
  return response.json<T>();
}
