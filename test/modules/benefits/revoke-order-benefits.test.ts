import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { revokeOrderBenefits } from "../../../src/modules/benefits/benefit-grants.service.ts";
import type { TestContext } from "../../helpers/context.ts";
import { createProduct, openOrganizationContext } from "../../helpers/factories.ts";
import { buyThroughCheckout } from "../subscriptions/subscription-helpers.ts";
import { LICENSE, NOTE } from "./grant-fixtures.ts";

// What a refund with `revoke_benefits` calls: the order's grants revoked once, whoever races.

let ctx: TestContext;
let org: { id: string };
let checkoutToken: string;
let refundToken: string;
beforeAll(async () => {
  ({
    ctx,
    org,
    tokens: [checkoutToken, refundToken],
  } = await openOrganizationContext(["checkouts:write"], ["refunds:write"]));
});
afterAll(() => ctx.close());

async function buyOnce(email: string) {
  const product = await createProduct(ctx.deps, org.id, { benefits: [LICENSE, NOTE] });
  const { checkout } = await buyThroughCheckout(ctx, checkoutToken, product.product.id, { buyer: { customer_email: email } });
  const order = await ctx.deps.db.selectFrom("orders").select("id").where("checkout_id", "=", checkout.id).executeTakeFirstOrThrow();
  return { orderId: order.id, customerId: checkout.customer_id };
}

const revokedEvents = (customerId: string) =>
  ctx.deps.db
    .selectFrom("webhook_events")
    .select("id")
    .where("type", "=", "benefit_grant.revoked")
    .where(sql<boolean>`payload->'data'->>'customer_id' = ${customerId}`)
    .execute();

describe("revokeOrderBenefits", () => {
  it("revokes an order's grants and its license key once when three callers race", async () => {
    const { orderId, customerId } = await buyOnce("race@example.com");
    const revoke = () => ctx.deps.db.transaction().execute((trx) => revokeOrderBenefits(trx, orderId, ctx.clock.now()));
    const counts = await Promise.all([revoke(), revoke(), revoke()]);
    expect(counts.sort()).toEqual([0, 0, 2]);
    const grants = await ctx.deps.db
      .selectFrom("benefit_grants")
      .select(["granted_at", "revoked_at"])
      .where("order_id", "=", orderId)
      .execute();
    expect(grants).toEqual([
      { granted_at: null, revoked_at: ctx.clock.now() },
      { granted_at: null, revoked_at: ctx.clock.now() },
    ]);
    expect(await revokedEvents(customerId)).toHaveLength(2);
    const key = await ctx.deps.db
      .selectFrom("license_keys")
      .select("status")
      .where("customer_id", "=", customerId)
      .executeTakeFirstOrThrow();
    expect(key.status).toBe("revoked");
  });

  it("writes nothing when the caller's transaction rolls back, and leaves other orders' grants alone", async () => {
    const mine = await buyOnce("rollback@example.com");
    const other = await buyOnce("other@example.com");
    await expect(
      ctx.deps.db.transaction().execute(async (trx) => {
        expect(await revokeOrderBenefits(trx, mine.orderId, ctx.clock.now())).toBe(2);
        throw new Error("the refund failed");
      }),
    ).rejects.toThrow("the refund failed");
    const stillGranted = await ctx.deps.db
      .selectFrom("benefit_grants")
      .select("id")
      .where("order_id", "in", [mine.orderId, other.orderId])
      .where("granted_at", "is not", null)
      .execute();
    expect(stillGranted).toHaveLength(4);
    expect(await revokedEvents(mine.customerId)).toEqual([]);
  });

  it("is what a refund with revoke_benefits runs: the grants' revoked events are recorded with the refund", async () => {
    const { orderId, customerId } = await buyOnce("refund@example.com");
    const response = await ctx.request({
      method: "POST",
      url: "/v1/refunds/",
      token: refundToken,
      payload: { order_id: orderId, reason: "customer_request", amount: 100, revoke_benefits: true },
    });
    expect(response.statusCode, response.body).toBe(201);
    expect(await revokedEvents(customerId)).toHaveLength(2);
  });
});
