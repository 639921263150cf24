import { webhooks } from "@polar-sh/sdk/2026-04";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { revokeOrderBenefits } from "../../../src/modules/benefits/benefit-grants.service.ts";
import type { TestContext } from "../../helpers/context.ts";
import { createCustomerSessionToken, createProduct, openOrganizationContext } from "../../helpers/factories.ts";
import { createWebhookEndpoint, deliveryHarness, fanOutPending } from "../../helpers/webhooks.ts";
import { buyThroughCheckout } from "../subscriptions/subscription-helpers.ts";
import { LICENSE, NOTE } from "./grant-fixtures.ts";

// Every grant change records its `benefit_grant.*` event in the change's transaction: a purchase
// grants (created), a paid renewal cycles, a pause, a plan change, a revoke and a refund revoke,
// a resume grants again (created), a customer's update of a grant's properties updates. Each event
// reaches an endpoint signed and the official SDK's `validateEvent` parses it.

let ctx: TestContext;
let org: { id: string };
let checkoutToken: string;
let writeToken: string;
beforeAll(async () => {
  ({
    ctx,
    org,
    tokens: [checkoutToken, writeToken],
  } = await openOrganizationContext(["checkouts:write"], ["subscriptions:write"]));
});
afterAll(() => ctx.close());
const { engine, receiver, closeReceivers } = deliveryHarness(() => ctx);
afterEach(async () => {
  vi.useRealTimers();
  await closeReceivers();
});

const GRANT_TYPES = ["benefit_grant.created", "benefit_grant.updated", "benefit_grant.revoked", "benefit_grant.cycled"] as const;

interface GrantData {
  id: string;
  is_granted: boolean;
  benefit: { description: string };
  previous_properties: unknown;
}

/** The grant events recorded since the last call, as [type, benefit, granted]. */
let seen = 0;
async function newGrantEvents(): Promise<[string, string, boolean][]> {
  const rows = await ctx.deps.db
    .selectFrom("webhook_events")
    .select(["type", "payload", "position"])
    .where("organization_id", "=", org.id)
    .where("type", "like", "benefit_grant.%")
    .where("position", ">", seen)
    .orderBy("position")
    .execute();
  if (rows.length) seen = Number(rows.at(-1)!.position);
  return rows.map((row) => {
    const data = row.payload.data as unknown as GrantData;
    return [row.type, data.benefit.description, data.is_granted];
  });
}

const patch = async (id: string, payload: Record<string, unknown>) => {
  const response = await ctx.request({ method: "PATCH", url: `/v1/subscriptions/${id}`, token: writeToken, payload });
  expect(response.statusCode, response.body).toBe(200);
  return response.json<{ current_period_end: string }>();
};

describe("benefit_grant.* webhooks", () => {
  it("follow a subscription's life and an order's refund, each parsed by the SDK's validateEvent", async () => {
    ctx.clock.set(new Date("2027-04-01T00:00:00.000Z"));
    const hook = await receiver();
    const endpoint = await createWebhookEndpoint(ctx.deps, org.id, { url: hook.url, events: [...GRANT_TYPES] });
    const plan = await createProduct(ctx.deps, org.id, {
      product: { name: "Granting plan", recurring_interval: "month", recurring_interval_count: 1 },
      prices: [{ amount_type: "fixed", price_amount: 1000 }],
      benefits: [LICENSE, NOTE],
    });
    const other = await createProduct(ctx.deps, org.id, {
      product: { name: "Other plan", recurring_interval: "month", recurring_interval_count: 1 },
      prices: [{ amount_type: "fixed", price_amount: 1000 }],
      benefits: [{ type: "custom", description: "Other perk", properties: { note: null } }],
    });
    const { checkout } = await buyThroughCheckout(ctx, checkoutToken, plan.product.id, { buyer: { customer_email: "grants@example.com" } });
    const id = checkout.subscription_id;
    expect(await newGrantEvents()).toEqual([
      ["benefit_grant.created", "Pro license", true],
      ["benefit_grant.created", "Private chat", true],
    ]);

    // A paid renewal cycles both grants.
    ctx.clock.set(new Date("2027-05-01T00:00:00.000Z"));
    await ctx.services.subscriptionRenewals.sweep({ organizationId: org.id });
    expect((await newGrantEvents()).map(([type]) => type)).toEqual(["benefit_grant.cycled", "benefit_grant.cycled"]);

    // Paused at the period end: revoked. Resumed: granted again (created), and the resume's paid order cycles them.
    await patch(id, { pause_at_period_end: true });
    ctx.clock.set(new Date("2027-06-01T00:00:00.000Z"));
    await ctx.services.subscriptionRenewals.sweep({ organizationId: org.id });
    expect(new Set(await newGrantEvents())).toEqual(
      new Set([
        ["benefit_grant.revoked", "Pro license", false],
        ["benefit_grant.revoked", "Private chat", false],
      ]),
    );
    ctx.clock.advance(86_400_000);
    await patch(id, { resume: true });
    expect((await newGrantEvents()).map(([type, , granted]) => [type, granted])).toEqual([
      ["benefit_grant.created", true],
      ["benefit_grant.created", true],
      ["benefit_grant.cycled", true],
      ["benefit_grant.cycled", true],
    ]);

    // A plan change revokes what the new product lacks, then grants its benefits.
    await patch(id, { product_id: other.product.id, proration_behavior: "invoice" });
    expect(new Set(await newGrantEvents())).toEqual(
      new Set([
        ["benefit_grant.revoked", "Pro license", false],
        ["benefit_grant.revoked", "Private chat", false],
        ["benefit_grant.created", "Other perk", true],
      ]),
    );

    // The subscription ends: what it still grants is revoked.
    await patch(id, { revoke: true });
    expect(await newGrantEvents()).toEqual([["benefit_grant.revoked", "Other perk", false]]);
    const grants = await ctx.deps.db.selectFrom("benefit_grants").select("granted_at").where("subscription_id", "=", id).execute();
    expect(grants.every((grant) => grant.granted_at === null)).toBe(true);

    // A one-time order, its grants taken back (a refund with revoke_benefits), then a customer's update.
    const discord = await createProduct(ctx.deps, org.id, {
      product: { name: "Lifetime" },
      benefits: [
        LICENSE,
        { type: "discord", description: "Discord role", properties: { guild_id: "g", role_id: "r", kick_member: false, guild_token: "t" } },
      ],
    });
    const once = await buyThroughCheckout(ctx, checkoutToken, discord.product.id, { buyer: { customer_email: "once@example.com" } });
    const orderId = (
      await ctx.deps.db.selectFrom("orders").select("id").where("checkout_id", "=", once.checkout.id).executeTakeFirstOrThrow()
    ).id;
    expect((await newGrantEvents()).map(([type]) => type)).toEqual(["benefit_grant.created", "benefit_grant.created"]);
    const session = await createCustomerSessionToken(ctx.deps, once.checkout.customer_id);
    const discordGrant = (
      await ctx.request({ method: "GET", url: "/v1/customer-portal/benefit-grants/?type=discord", token: session })
    ).json<{ items: { id: string }[] }>().items[0]!;
    const updated = await ctx.request({
      method: "PATCH",
      url: `/v1/customer-portal/benefit-grants/${discordGrant.id}`,
      token: session,
      payload: { benefit_type: "discord", properties: { account_id: null } },
    });
    expect(updated.statusCode, updated.body).toBe(200);
    expect(await newGrantEvents()).toEqual([["benefit_grant.updated", "Discord role", true]]);
    expect(await ctx.deps.db.transaction().execute((trx) => revokeOrderBenefits(trx, orderId, ctx.clock.now()))).toBe(2);
    expect(await ctx.deps.db.transaction().execute((trx) => revokeOrderBenefits(trx, orderId, ctx.clock.now()))).toBe(0);
    expect(new Set(await newGrantEvents())).toEqual(
      new Set([
        ["benefit_grant.revoked", "Pro license", false],
        ["benefit_grant.revoked", "Discord role", false],
      ]),
    );
    const key = await ctx.deps.db
      .selectFrom("license_keys")
      .select("status")
      .where("customer_id", "=", once.checkout.customer_id)
      .executeTakeFirstOrThrow();
    expect(key.status).toBe("revoked");

    const delivery = engine();
    await fanOutPending(ctx.deps, delivery);
    await delivery.deliverEndpoint(endpoint.id);
    expect(new Set(hook.received.map((request) => (JSON.parse(request.body) as { type: string }).type))).toEqual(new Set(GRANT_TYPES));
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(ctx.clock.now());
    for (const request of hook.received) {
      const event = await webhooks.validateEvent(request.body, request.headers, endpoint.secret);
      const sent = JSON.parse(request.body) as { type: string; data: GrantData };
      expect(event.type).toBe(sent.type);
      expect(event.data.id).toBe(sent.data.id);
      if (event.type === "benefit_grant.updated") expect(event.data.previous_properties).toEqual({});
      if (event.type === "benefit_grant.revoked") expect(event.data).toMatchObject({ is_revoked: true, is_granted: false });
      if (event.type === "benefit_grant.cycled") expect(event.data.is_granted).toBe(true);
    }
  });

  it("revoke a subscription's grants when it ends at its period end and when a renewal charge fails", async () => {
    ctx.clock.set(new Date("2028-01-10T00:00:00.000Z"));
    const plan = await createProduct(ctx.deps, org.id, {
      product: { name: "Ending plan", recurring_interval: "month", recurring_interval_count: 1 },
      prices: [{ amount_type: "fixed", price_amount: 1200 }],
      benefits: [LICENSE],
    });
    const ending = await buyThroughCheckout(ctx, checkoutToken, plan.product.id, { buyer: { customer_email: "ending@example.com" } });
    const declining = await buyThroughCheckout(ctx, checkoutToken, plan.product.id, {
      buyer: { customer_email: "declining@example.com" },
      card: "tok_chargeCustomerFail",
    });
    await patch(ending.checkout.subscription_id, { cancel_at_period_end: true });
    await newGrantEvents();
    ctx.clock.set(new Date("2028-02-10T00:00:00.000Z"));
    await ctx.services.subscriptionRenewals.sweep({ organizationId: org.id });
    const statusOf = async (customerId: string) => {
      const grant = await ctx.deps.db
        .selectFrom("benefit_grants")
        .select("granted_at")
        .where("customer_id", "=", customerId)
        .executeTakeFirstOrThrow();
      const key = await ctx.deps.db
        .selectFrom("license_keys")
        .select("status")
        .where("customer_id", "=", customerId)
        .executeTakeFirstOrThrow();
      return { granted: grant.granted_at !== null, key: key.status };
    };
    expect(await statusOf(ending.checkout.customer_id)).toEqual({ granted: false, key: "revoked" });
    expect(await statusOf(declining.checkout.customer_id)).toEqual({ granted: false, key: "revoked" });
    expect(await newGrantEvents()).toEqual([
      ["benefit_grant.revoked", "Pro license", false],
      ["benefit_grant.revoked", "Pro license", false],
    ]);
  });
});
