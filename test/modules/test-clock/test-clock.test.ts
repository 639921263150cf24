import { randomUUID } from "node:crypto";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addInterval } from "../../../src/values/calendar.ts";
import { badInputTable } from "../../helpers/bad-inputs.ts";
import { createTestContext, type TestContext } from "../../helpers/context.ts";
import { createOrganization, createOrganizationToken, createProduct } from "../../helpers/factories.ts";
import { openCheckoutThroughApi } from "../checkouts/checkout-helpers.ts";
import { buyThroughCheckout } from "../subscriptions/subscription-helpers.ts";

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(() => ctx.close());

const DAY = 24 * 60 * 60 * 1000;

/** A fresh organization with a token that may buy, read subscriptions and move the clock. */
async function sandboxOrganization() {
  const organization = await createOrganization(ctx.deps);
  const token = await createOrganizationToken(ctx.deps, organization.id, ["checkouts:write", "subscriptions:write", "orders:read"]);
  const plan = await createProduct(ctx.deps, organization.id, {
    product: { name: "Monthly", recurring_interval: "month", recurring_interval_count: 1 },
    prices: [{ amount_type: "fixed", price_amount: 1500 }],
  });
  return { organizationId: organization.id, token, plan };
}
const advance = (token: string | null, payload: Record<string, unknown>) =>
  ctx.request({ method: "POST", url: "/v1/test-clock/advance", token, payload });
const ordersOf = (subscriptionId: string) =>
  ctx.deps.db.selectFrom("orders").selectAll().where("subscription_id", "=", subscriptionId).orderBy("created_at").execute();

describe("the sandbox test clock over HTTP", () => {
  it("sells through the buyer's checkout at the organization's time after an advance", async () => {
    const { token, plan } = await sandboxOrganization();
    expect((await advance(token, { seconds: 40 * 24 * 3600 })).statusCode).toBe(200);
    const organizationNow = ctx.clock.now().getTime() + 40 * DAY;

    // The buyer's requests carry no token: the session's organization sets their clock.
    const { checkout } = await buyThroughCheckout(ctx, token, plan.product.id, { buyer: { customer_email: "late-buyer@example.com" } });
    const [order] = await ordersOf(checkout.subscription_id);
    expect(order!.created_at.getTime()).toBeCloseTo(organizationNow, -4);
    const subscription = await ctx.deps.db
      .selectFrom("subscriptions")
      .select("current_period_start")
      .where("id", "=", checkout.subscription_id)
      .executeTakeFirstOrThrow();
    expect(subscription.current_period_start.getTime()).toBeCloseTo(organizationNow, -4);
  });

  it("buys a monthly plan and advances three months: three renewals, paid, stamped at the organization's time", async () => {
    const { organizationId, token, plan } = await sandboxOrganization();
    const bought = ctx.clock.now();
    const { checkout } = await buyThroughCheckout(ctx, token, plan.product.id, { buyer: { customer_email: "clock@example.com" } });
    const before = await ctx.request({ method: "GET", url: "/v1/test-clock", token });
    expect(before.statusCode, before.body).toBe(200);
    expect(before.json()).toEqual({ organization_id: organizationId, now: ctx.clock.now().toISOString(), offset_seconds: 0 });

    const response = await advance(token, { seconds: 92 * 24 * 3600 });
    expect(response.statusCode, response.body).toBe(200);
    const target = new Date(ctx.clock.now().getTime() + 92 * DAY);
    expect(response.json()).toMatchObject({ organization_id: organizationId, now: target.toISOString(), renewals: 3, payment_retries: 0 });

    const orders = await ordersOf(checkout.subscription_id);
    expect(orders.map((order) => [order.billing_reason, order.status])).toEqual([
      ["subscription_create", "paid"],
      ["subscription_cycle", "paid"],
      ["subscription_cycle", "paid"],
      ["subscription_cycle", "paid"],
    ]);
    // Each renewal happened at the moment its period ended, on the organization's clock.
    const subscription = await ctx.deps.db
      .selectFrom("subscriptions")
      .selectAll()
      .where("id", "=", checkout.subscription_id)
      .executeTakeFirstOrThrow();
    const ends = [1, 2, 3].map((months) => addInterval(bought, "month", months).getTime());
    expect(orders.slice(1).map((order) => order.created_at.getTime())).toEqual(ends.map((end) => expect.closeTo(end, -3)));
    // The period boundaries are the anchored dates themselves; only the processing time is the clock's.
    expect(subscription.current_period_start.getTime()).toBe(ends[2]);
    const cycled = await ctx.deps.db
      .selectFrom("webhook_events")
      .select(sql<string>`payload->>'timestamp'`.as("timestamp"))
      .where("organization_id", "=", organizationId)
      .where("type", "=", "subscription.cycled")
      .orderBy("position")
      .execute();
    expect(cycled.map((event) => new Date(event.timestamp).getTime())).toEqual(ends.map((end) => expect.closeTo(end, -3)));

    // The organization's requests now run at its time: a new checkout is stamped ~92 days ahead.
    const session = await openCheckoutThroughApi(ctx, token, { products: [plan.product.id] });
    expect(new Date(session.created_at).getTime()).toBeGreaterThan(ctx.clock.now().getTime() + 91 * DAY);
    const read = (await ctx.request({ method: "GET", url: "/v1/test-clock", token })).json();
    expect(read.offset_seconds).toBeGreaterThanOrEqual(92 * 24 * 3600);
  });

  it("runs a failed renewal's dunning in time order and revokes at the fifth failure, leaving other organizations alone", async () => {
    const { token, plan } = await sandboxOrganization();
    const other = await sandboxOrganization();
    const { checkout } = await buyThroughCheckout(ctx, token, plan.product.id, {
      card: "tok_chargeCustomerFail",
      buyer: { customer_email: "dunned@example.com" },
    });
    const bystander = await buyThroughCheckout(ctx, other.token, other.plan.product.id, {
      buyer: { customer_email: "bystander@example.com" },
    });

    const periodEnd = (
      await ctx.deps.db
        .selectFrom("subscriptions")
        .select("current_period_end")
        .where("id", "=", checkout.subscription_id)
        .executeTakeFirstOrThrow()
    ).current_period_end;
    const month = await advance(token, { to: periodEnd.toISOString() });
    expect(month.json()).toMatchObject({ renewals: 1, payment_retries: 0 });
    const pastDue = await ctx.deps.db
      .selectFrom("subscriptions")
      .selectAll()
      .where("id", "=", checkout.subscription_id)
      .executeTakeFirstOrThrow();
    expect(pastDue.status).toBe("past_due");

    const weeks = await advance(token, { seconds: 22 * 24 * 3600 });
    expect(weeks.json()).toMatchObject({ payment_retries: 4 });
    const revoked = await ctx.deps.db
      .selectFrom("subscriptions")
      .selectAll()
      .where("id", "=", checkout.subscription_id)
      .executeTakeFirstOrThrow();
    expect(revoked.status).toBe("canceled");
    expect(revoked.ended_at!.getTime() - pastDue.past_due_at!.getTime()).toBeCloseTo(21 * DAY, -4);

    // The other organization's time did not move and nothing of it ran.
    expect(await ordersOf(bystander.checkout.subscription_id)).toHaveLength(1);
    expect((await ctx.request({ method: "GET", url: "/v1/test-clock", token: other.token })).json().offset_seconds).toBe(0);
  });

  it("expires an open checkout whose time came, with checkout.expired", async () => {
    const { organizationId, token, plan } = await sandboxOrganization();
    const session = await openCheckoutThroughApi(ctx, token, { products: [plan.product.id] });
    const response = await advance(token, { to: new Date(ctx.clock.now().getTime() + 2 * DAY).toISOString() });
    expect(response.json()).toMatchObject({ expired_checkouts: 1 });
    const row = await ctx.deps.db.selectFrom("checkouts").select("status").where("id", "=", session.id).executeTakeFirstOrThrow();
    expect(row.status).toBe("expired");
    const events = await ctx.deps.db.selectFrom("webhook_events").select("type").where("organization_id", "=", organizationId).execute();
    expect(events.map((event) => event.type)).toContain("checkout.expired");
  });

  describe("bad inputs", () => {
    let token: string;
    let readOnly: string;
    let otherOrganization: string;
    beforeAll(async () => {
      ({ token } = await sandboxOrganization());
      const organization = (
        await ctx.deps.db
          .selectFrom("organization_access_tokens")
          .select("organization_id")
          .orderBy("created_at", "desc")
          .executeTakeFirstOrThrow()
      ).organization_id;
      readOnly = await createOrganizationToken(ctx.deps, organization, ["subscriptions:read"]);
      otherOrganization = (await createOrganization(ctx.deps)).id;
    });
    const post = (payload: Record<string, unknown>, as?: () => string | null) => () => ({
      method: "POST" as const,
      url: "/v1/test-clock/advance",
      token: as ? as() : token,
      payload,
    });
    badInputTable(
      () => ctx.request,
      [
        { name: "a time in the past", request: post({ to: "2020-01-01T00:00:00Z" }), status: 422, loc: ["body", "to"] },
        { name: "zero seconds", request: post({ seconds: 0 }), status: 422 },
        { name: "negative seconds", request: post({ seconds: -60 }), status: 422 },
        { name: "both to and seconds", request: post({ to: "2099-01-01T00:00:00Z", seconds: 60 }), status: 422 },
        { name: "a date that is not one", request: post({ to: "next week" }), status: 422 },
        { name: "an empty organization_id", request: post({ seconds: 60, organization_id: "" }), status: 422 },
        { name: "another organization's id", request: () => post({ seconds: 60, organization_id: otherOrganization })(), status: 404 },
        {
          name: "a personal token without organization_id",
          request: post({ seconds: 60 }, () => ctx.ownerToken),
          status: 422,
          loc: ["body", "organization_id"],
        },
        {
          name: "an unknown organization with a personal token",
          request: post({ seconds: 60, organization_id: randomUUID() }, () => ctx.ownerToken),
          status: 404,
        },
        { name: "no token", request: post({ seconds: 60 }, () => null), status: 401 },
        {
          name: "GET with a personal token without organization_id",
          request: () => ({ method: "GET" as const, url: "/v1/test-clock", token: ctx.ownerToken }),
          status: 422,
          loc: ["query", "organization_id"],
        },
        {
          name: "GET of another organization",
          request: () => ({ method: "GET" as const, url: `/v1/test-clock?organization_id=${otherOrganization}`, token }),
          status: 404,
        },
        {
          name: "GET with a non-UUID organization_id",
          request: () => ({ method: "GET" as const, url: "/v1/test-clock?organization_id=acme", token }),
          status: 422,
        },
        { name: "GET without a token", request: () => ({ method: "GET" as const, url: "/v1/test-clock", token: null }), status: 401 },
        { name: "a token without subscriptions:write", request: post({ seconds: 60 }, () => readOnly), status: 403 },
      ],
    );
  });
});

describe("the test clock in production", () => {
  it("does not exist", async () => {
    const production = await createTestContext({ env: { ENVIRONMENT: "production", SECRET_KEY: "x".repeat(40) } });
    try {
      const organization = await createOrganization(production.deps);
      const token = await createOrganizationToken(production.deps, organization.id, ["subscriptions:write"]);
      expect((await production.request({ method: "GET", url: "/v1/test-clock", token })).statusCode).toBe(404);
      expect(
        (await production.request({ method: "POST", url: "/v1/test-clock/advance", token, payload: { seconds: 60 } })).statusCode,
      ).toBe(404);
    } finally {
      await production.close();
    }
  });
});
