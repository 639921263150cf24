import { sql } from "kysely";
import { expect } from "vitest";
import type { TestContext } from "../../helpers/context.ts";
import { createProduct, openOrganizationContext, registerForTax } from "../../helpers/factories.ts";

/** Row counts of what the checkout flow writes, to prove a refused request wrote nothing. */
export async function writeCounts(ctx: TestContext) {
  const row = await sql<Record<string, string>>`SELECT
      (SELECT count(*) FROM checkouts) AS checkouts,
      (SELECT count(*) FROM orders) AS orders,
      (SELECT count(*) FROM customers) AS customers,
      (SELECT count(*) FROM webhook_events) AS events,
      (SELECT count(*) FROM benefit_grants) AS grants,
      (SELECT coalesce(sum(redemptions_count), 0) FROM discounts) AS redemptions,
      (SELECT count(*) FROM customer_sessions) AS sessions,
      (SELECT count(*) FROM emails) AS emails`.execute(ctx.deps.db);
  return Object.fromEntries(Object.entries(row.rows[0]!).map(([k, v]) => [k, Number(v)]));
}

/** Event types recorded for one checkout, oldest first. */
export async function eventsFor(ctx: TestContext, checkoutId: string): Promise<string[]> {
  const rows = await ctx.deps.db
    .selectFrom("webhook_events")
    .select(["type"])
    .where(sql<boolean>`payload->'data'->>'id' = ${checkoutId} OR payload->'data'->>'checkout_id' = ${checkoutId}`)
    .orderBy("created_at")
    .orderBy(sql`payload->>'timestamp'`)
    .execute();
  return rows.map((r) => r.type);
}

export const FR_ADDRESS = { country: "FR", line1: "1 rue de Rivoli", city: "Paris", postal_code: "75001" };
export const US_ADDRESS = { country: "US", line1: "1 Main St", city: "New York", postal_code: "10001", state: "US-NY" };

/** Opens a checkout session through the API, as a merchant backend would. */
export async function openCheckoutThroughApi(ctx: TestContext, token: string, payload: Record<string, unknown>) {
  const response = await ctx.request({ method: "POST", url: "/v1/checkouts/", token, payload });
  expect(response.statusCode, response.body).toBe(201);
  return response.json<{ id: string; client_secret: string; created_at: string; [key: string]: unknown }>();
}

/** A context with a checkout writer's token and one product to check out, its organization registered for tax (`registerForTax`). */
export async function openCheckoutContext() {
  const {
    ctx,
    org,
    tokens: [token],
  } = await openOrganizationContext(["checkouts:write"]);
  await registerForTax(ctx.deps, org.id);
  return { ctx, token, productId: (await createProduct(ctx.deps, org.id)).product.id };
}

/** Moves a session's expiry just behind the test clock. */
export async function expireCheckoutNow(ctx: TestContext, checkoutId: string): Promise<void> {
  await ctx.deps.db
    .updateTable("checkouts")
    .set({ expires_at: new Date(ctx.deps.now().getTime() - 1000) })
    .where("id", "=", checkoutId)
    .execute();
}
