import { sql } from "kysely";
import { expect } from "vitest";
import type { TestContext } from "../../helpers/context.ts";
import { FR_ADDRESS, openCheckoutThroughApi } from "../checkouts/checkout-helpers.ts";

export const BUYER = { customer_email: "sub@example.com", customer_name: "Sub Scriber", customer_billing_address: FR_ADDRESS };

/**
 * Buys `productId` through the API as a storefront would: opens a checkout with the merchant's
 * token, confirms it with a sandbox card token, and reads the completed session back.
 */
export async function buyThroughCheckout(
  ctx: TestContext,
  token: string,
  productId: string,
  options: { checkout?: Record<string, unknown>; buyer?: Record<string, unknown>; card?: string } = {},
) {
  const session = await openCheckoutThroughApi(ctx, token, { products: [productId], ...options.checkout });
  const response = await ctx.request({
    method: "POST",
    url: `/v1/checkouts/client/${session.client_secret}/confirm`,
    payload: { ...BUYER, ...options.buyer, confirmation_token_id: options.card ?? "tok_visa" },
  });
  expect(response.statusCode, response.body).toBe(200);
  const checkout = (await ctx.request({ method: "GET", url: `/v1/checkouts/${session.id}`, token: ctx.ownerToken })).json();
  return { session, checkout: checkout as { id: string; subscription_id: string; customer_id: string; [key: string]: unknown } };
}

/** Webhook event types recorded about one resource (by `data.id`), in recording order. */
export async function eventTypesOf(ctx: TestContext, resourceId: string): Promise<string[]> {
  const rows = await ctx.deps.db
    .selectFrom("webhook_events")
    .select("type")
    .where(sql<boolean>`payload->'data'->>'id' = ${resourceId}`)
    .orderBy("position")
    .execute();
  return rows.map((row) => row.type);
}

/** A working sandbox card saved for the customer and made the subscription's, as a customer fixing a declined card would. */
export async function giveSubscriptionWorkingCard(
  ctx: TestContext,
  owner: { organizationId: string; customerId: string; subscriptionId: string },
): Promise<void> {
  const card = await ctx.deps.db
    .insertInto("payment_methods")
    .values({
      organization_id: owner.organizationId,
      customer_id: owner.customerId,
      processor_reference: "pm_sandbox_tok_visa_000000000000000000000000",
      type: "card",
      brand: "visa",
      last4: "4242",
      exp_month: 12,
      exp_year: 2034,
      modified_at: null,
      deleted_at: null,
    })
    .returning("id")
    .executeTakeFirstOrThrow();
  await ctx.deps.db.updateTable("subscriptions").set({ payment_method_id: card.id }).where("id", "=", owner.subscriptionId).execute();
}
