import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestContext } from "../../helpers/context.ts";
import { createProduct, openOrganizationContext } from "../../helpers/factories.ts";
import { LICENSE } from "../benefits/grant-fixtures.ts";
import { buyThroughCheckout } from "../subscriptions/subscription-helpers.ts";
import { enableMembers } from "./member-helpers.ts";

// DELETE /v1/customers/{id} of a buyer of seats: the seats it bought through a one-time order are
// revoked as those of its subscriptions are (holders' grants and keys revoked, `customer_seat.revoked`).

let ctx: TestContext;
let org: { id: string };
let token: string;

beforeAll(async () => {
  ({
    ctx,
    org,
    tokens: [token],
  } = await openOrganizationContext(["checkouts:write", "customers:write", "customer_seats:write"]));
  await enableMembers(ctx.deps, org.id);
  await enableMembers(ctx.deps, org.id, "seat_based_pricing_enabled");
});
afterAll(() => ctx.close());

const seatTiers = JSON.stringify([{ min_seats: 1, max_seats: null, price_per_seat: 500 }]);
const assign = async (payload: Record<string, unknown>) => {
  const response = await ctx.request({ method: "POST", url: "/v1/customer-seats", token, payload });
  expect(response.statusCode, response.body).toBe(200);
  return response.json<{ id: string; status: string }>();
};
const seatRow = (id: string) => ctx.deps.db.selectFrom("customer_seats").selectAll().where("id", "=", id).executeTakeFirstOrThrow();
const revokedEvents = async (seatId: string) =>
  (
    await ctx.deps.db
      .selectFrom("webhook_events")
      .select("type")
      .where("type", "=", "customer_seat.revoked")
      .where(sql<boolean>`payload->'data'->>'id' = ${seatId}`)
      .execute()
  ).length;

describe("DELETE /v1/customers/{id} of a buyer of seats", () => {
  it("revokes the seats of its one-time orders, claimed and pending, with their holders' grants and keys", async () => {
    const pack = await createProduct(ctx.deps, org.id, {
      product: { name: "Seat pack" },
      prices: [{ amount_type: "seat_based", seat_tiers: seatTiers }],
      benefits: [LICENSE],
    });
    const { checkout } = await buyThroughCheckout(ctx, token, pack.product.id, {
      buyer: { customer_email: "seat-pack-deleted@example.com" },
      checkout: { seats: 3 },
    });
    const order = await ctx.deps.db.selectFrom("orders").selectAll().where("checkout_id", "=", checkout.id).executeTakeFirstOrThrow();
    const claimed = await assign({ order_id: order.id, email: "claimed-holder@example.com", immediate_claim: true });
    const pending = await assign({ order_id: order.id, email: "pending-holder@example.com" });
    expect([claimed.status, pending.status]).toEqual(["claimed", "pending"]);
    const [grant] = await ctx.deps.db.selectFrom("benefit_grants").selectAll().where("seat_id", "=", claimed.id).execute();
    expect(grant!.granted_at).not.toBeNull();

    const response = await ctx.request({ method: "DELETE", url: `/v1/customers/${checkout.customer_id}`, token });
    expect(response.statusCode, response.body).toBe(204);

    for (const seat of [claimed, pending]) {
      expect(await seatRow(seat.id)).toMatchObject({ status: "revoked", customer_id: null, member_id: null, email: null });
      expect(await revokedEvents(seat.id)).toBe(1);
    }
    const after = await ctx.deps.db.selectFrom("benefit_grants").selectAll().where("id", "=", grant!.id).executeTakeFirstOrThrow();
    expect(after.granted_at).toBeNull();
    const key = await ctx.deps.db
      .selectFrom("license_keys")
      .select("status")
      .where("id", "=", grant!.properties.license_key_id as string)
      .executeTakeFirstOrThrow();
    expect(key.status).toBe("revoked");
    // The order stays (a seller keeps it for tax), and so does the seat row, revoked.
    expect((await ctx.deps.db.selectFrom("orders").select("status").where("id", "=", order.id).executeTakeFirstOrThrow()).status).toBe(
      "paid",
    );
  });
});
