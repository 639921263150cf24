import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestContext, type TestContext } from "../../helpers/context.ts";
import { createOrganization, createOrganizationToken, createProduct } from "../../helpers/factories.ts";
import { enableMembers } from "../customers/member-helpers.ts";
import { buyThroughCheckout } from "../subscriptions/subscription-helpers.ts";

// A seat holder's grants follow the subscription as its buyer's would: each paid renewal cycles
// them, the license key lasts as long as the subscription, and the end of the subscription revokes them.

let ctx: TestContext;
let org: { id: string };
let token: string;
const DAY = 24 * 3600;
const seatTiers = JSON.stringify([{ min_seats: 1, max_seats: null, price_per_seat: 500 }]);
/** A key the benefit would let expire after a month, were it not backed by a subscription. */
const EXPIRING_KEY = {
  type: "license_keys",
  description: "Seat key",
  properties: { prefix: "SEAT", expires: { ttl: 1, timeframe: "month" } },
};

beforeAll(async () => {
  ctx = await createTestContext();
  org = await createOrganization(ctx.deps);
  await enableMembers(ctx.deps, org.id);
  await enableMembers(ctx.deps, org.id, "seat_based_pricing_enabled");
  token = await createOrganizationToken(ctx.deps, org.id, ["checkouts:write", "subscriptions:write", "customer_seats:write"]);
});
afterAll(() => ctx.close());

const advance = async (seconds: number) => {
  const response = await ctx.request({ method: "POST", url: "/v1/test-clock/advance", token, payload: { seconds } });
  expect(response.statusCode, response.body).toBe(200);
  return response.json<{ renewals: number }>();
};
const claimSeat = async (container: { subscription_id: string } | { order_id: string }, email: string) => {
  const response = await ctx.request({
    method: "POST",
    url: "/v1/customer-seats",
    token,
    payload: { ...container, email, immediate_claim: true },
  });
  expect(response.statusCode, response.body).toBe(200);
  return response.json<{ id: string }>();
};
const grantOfSeat = (seatId: string) =>
  ctx.deps.db.selectFrom("benefit_grants").selectAll().where("seat_id", "=", seatId).executeTakeFirstOrThrow();
const keyOf = (grant: { properties: Record<string, unknown> }) =>
  ctx.deps.db
    .selectFrom("license_keys")
    .select(["status", "expires_at"])
    .where("id", "=", String(grant.properties.license_key_id))
    .executeTakeFirstOrThrow();
const grantEvents = async (grantId: string) =>
  (
    await ctx.deps.db
      .selectFrom("webhook_events")
      .select("type")
      .where("type", "like", "benefit_grant.%")
      .where(sql<boolean>`payload->'data'->>'id' = ${grantId}`)
      .orderBy("position")
      .execute()
  ).map((row) => row.type);

describe("a seat holder's grants over the subscription's renewals", () => {
  it("cycles them at each paid renewal with the buyer's, keeps their key alive, and revokes them when the subscription ends", async () => {
    const plan = await createProduct(ctx.deps, org.id, {
      product: { name: "Team seats", recurring_interval: "month", recurring_interval_count: 1 },
      prices: [{ amount_type: "seat_based", seat_tiers: seatTiers }],
      benefits: [EXPIRING_KEY],
    });
    const { checkout } = await buyThroughCheckout(ctx, token, plan.product.id, {
      buyer: { customer_email: "seat-renewals-buyer@example.com" },
      checkout: { seats: 2 },
    });
    const subscriptionId = checkout.subscription_id;
    const seat = await claimSeat({ subscription_id: subscriptionId }, "seat-renewals-holder@example.com");
    const grant = await grantOfSeat(seat.id);
    expect(grant.granted_at).not.toBeNull();
    expect(await keyOf(grant)).toEqual({ status: "granted", expires_at: null });

    expect((await advance(65 * DAY)).renewals).toBe(2);
    const orders = await ctx.deps.db
      .selectFrom("orders")
      .select(["billing_reason", "status"])
      .where("subscription_id", "=", subscriptionId)
      .execute();
    expect(orders.filter((order) => order.billing_reason === "subscription_cycle" && order.status === "paid")).toHaveLength(2);
    expect(await grantEvents(grant.id)).toEqual(["benefit_grant.created", "benefit_grant.cycled", "benefit_grant.cycled"]);
    // Two months on, past the benefit's one-month expiry: the key still works, as the subscription does.
    expect(await keyOf(grant)).toEqual({ status: "granted", expires_at: null });
    expect((await grantOfSeat(seat.id)).granted_at).not.toBeNull();

    const cancel = await ctx.request({
      method: "PATCH",
      url: `/v1/subscriptions/${subscriptionId}`,
      token,
      payload: { cancel_at_period_end: true },
    });
    expect(cancel.statusCode, cancel.body).toBe(200);
    expect((await advance(31 * DAY)).renewals).toBe(1);
    const ended = await ctx.deps.db.selectFrom("subscriptions").select("status").where("id", "=", subscriptionId).executeTakeFirstOrThrow();
    expect(ended.status).toBe("canceled");
    const seatRow = await ctx.deps.db.selectFrom("customer_seats").selectAll().where("id", "=", seat.id).executeTakeFirstOrThrow();
    expect(seatRow.status).toBe("revoked");
    const revoked = await ctx.deps.db.selectFrom("benefit_grants").selectAll().where("id", "=", grant.id).executeTakeFirstOrThrow();
    expect(revoked.granted_at).toBeNull();
    expect(revoked.revoked_at).not.toBeNull();
    expect(await grantEvents(grant.id)).toEqual([
      "benefit_grant.created",
      "benefit_grant.cycled",
      "benefit_grant.cycled",
      "benefit_grant.revoked",
    ]);
    expect((await keyOf(grant)).status).toBe("revoked");
  });

  it("lets a one-time seat order's holder key expire as the benefit says: no subscription backs it", async () => {
    const pack = await createProduct(ctx.deps, org.id, {
      product: { name: "Seat pack" },
      prices: [{ amount_type: "seat_based", seat_tiers: seatTiers }],
      benefits: [EXPIRING_KEY],
    });
    const { checkout } = await buyThroughCheckout(ctx, token, pack.product.id, {
      buyer: { customer_email: "seat-pack-buyer@example.com" },
      checkout: { seats: 1 },
    });
    const order = await ctx.deps.db.selectFrom("orders").select("id").where("checkout_id", "=", checkout.id).executeTakeFirstOrThrow();
    const seat = await claimSeat({ order_id: order.id }, "seat-pack-holder@example.com");
    const key = await keyOf(await grantOfSeat(seat.id));
    expect(key.status).toBe("granted");
    expect(key.expires_at).not.toBeNull();
  });
});
