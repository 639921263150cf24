import { createPolar } from "@polar-sh/sdk/2026-04";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listen, type TestContext } from "../../helpers/context.ts";
import {
  createCustomerSessionToken,
  createDiscount,
  createOrganization,
  createOrganizationToken,
  createProduct,
  openOrganizationContext,
} from "../../helpers/factories.ts";
import { expectReferenceResponse } from "../../helpers/reference.ts";
import { ingest, runBackfills, runMeterCredits } from "../meters/meters-helpers.ts";
import { buyThroughCheckout } from "./subscription-helpers.ts";

let ctx: TestContext;
let orgId: string;
let token: string;
let meterToken: string;
let readToken: string;
let baseUrl: string;

beforeAll(async () => {
  ({
    ctx,
    org: { id: orgId },
    tokens: [token, meterToken, readToken],
  } = await openOrganizationContext(["checkouts:write", "subscriptions:write"], ["meters:write", "events:write"], ["orders:read"]));
  baseUrl = await listen(ctx);
});
afterAll(() => ctx.close());

const sweep = () => ctx.services.subscriptionRenewals.sweep();
const subscriptionRow = (id: string) => ctx.deps.db.selectFrom("subscriptions").selectAll().where("id", "=", id).executeTakeFirstOrThrow();
const ordersOf = (subscriptionId: string) =>
  ctx.deps.db.selectFrom("orders").selectAll().where("subscription_id", "=", subscriptionId).orderBy("invoice_number").execute();
const itemsOf = (orderId: string) =>
  ctx.deps.db
    .selectFrom("order_items")
    .select(["label", "amount", "product_price_id", "proration"])
    .where("order_id", "=", orderId)
    .orderBy("position")
    .execute();
const iso = (ms: number) => new Date(ms).toISOString();

async function createMeter(eventName: string): Promise<string> {
  const response = await ctx.request({
    method: "POST",
    url: "/v1/meters/",
    token: meterToken,
    payload: {
      name: `${eventName} calls`,
      filter: { conjunction: "and", clauses: [{ property: "name", operator: "eq", value: eventName }] },
      aggregation: { func: "count" },
    },
  });
  expect(response.statusCode, response.body).toBe(201);
  return response.json<{ id: string }>().id;
}

/**
 * A monthly plan of 10.00 a month plus `unitAmount` cents per `eventName` event, bought now (with
 * `discountId`, at that discount); with `credits`, the plan also grants a `meter_credit` benefit of the meter.
 */
async function subscribe(
  eventName: string,
  unitAmount: string,
  capAmount: number | null,
  options: { card?: string; credits?: { units: number; rollover: boolean }; discountId?: string } = {},
) {
  const { card = "tok_visa", credits } = options;
  const meterId = await createMeter(eventName);
  const plan = await createProduct(ctx.deps, orgId, {
    product: { name: `Plan ${eventName}`, recurring_interval: "month", recurring_interval_count: 1 },
    prices: [
      { amount_type: "fixed", price_amount: 1000 },
      { amount_type: "metered_unit", unit_amount: unitAmount, cap_amount: capAmount, meter_id: meterId, meter_name: `${eventName} calls` },
    ],
    benefits: credits ? [{ type: "meter_credit", description: `${eventName} credits`, properties: { ...credits, meter_id: meterId } }] : [],
  });
  const { checkout } = await buyThroughCheckout(ctx, token, plan.product.id, {
    buyer: { customer_email: `${eventName}@example.com` },
    ...(options.discountId ? { checkout: { discount_id: options.discountId } } : {}),
    card,
  });
  return {
    meterId,
    id: checkout.subscription_id,
    customerId: checkout.customer_id,
    meteredPriceId: plan.prices[1]!.id,
    label: `${eventName} calls`,
  };
}

const events = (name: string, customerId: string, timestamps: number[]) =>
  timestamps.map((timestamp) => ({ name, customer_id: customerId, timestamp: iso(timestamp) }));

/** Moves the clock to the subscription's period end and renews it; returns the renewal order's items. */
async function renew(id: string) {
  const before = await subscriptionRow(id);
  ctx.clock.set(before.current_period_end);
  await sweep();
  const orders = await ordersOf(id);
  const order = orders.at(-1)!;
  return { before, order, items: await itemsOf(order.id) };
}

/** One period: a day into it the events `usage(start)` are ingested, then the period closes; its start and renewal. */
async function billPeriod(sub: { id: string; customerId: string }, eventName: string, usage: (start: number) => number[]) {
  const start = (await subscriptionRow(sub.id)).current_period_start.getTime();
  ctx.clock.set(new Date(start + 86_400_000));
  await ingest(ctx, meterToken, events(eventName, sub.customerId, usage(start)));
  return { start, renewal: await renew(sub.id) };
}

/** `after` into the current period, one event, then the subscription is updated (to end or pause at the period end). */
async function oneEventThenUpdate(
  sub: { id: string; customerId: string },
  eventName: string,
  update: { cancel_at_period_end: true } | { pause_at_period_end: true } = { cancel_at_period_end: true },
  after = 60_000,
) {
  const start = (await subscriptionRow(sub.id)).current_period_start.getTime();
  ctx.clock.set(new Date(start + after));
  await ingest(ctx, meterToken, events(eventName, sub.customerId, [start + 1]));
  const patched = await ctx.request({ method: "PATCH", url: `/v1/subscriptions/${sub.id}`, token, payload: update });
  expect(patched.statusCode, patched.body).toBe(200);
}

describe("metered prices on renewals", () => {
  it("bills each closed period's usage by event timestamp over [start, end), in arrears, over several renewals, with late events billed once on the next order", async () => {
    ctx.clock.set(new Date("2027-03-10T09:15:30.000Z"));
    const sub = await subscribe("api", "12.5", null);
    const first = await subscriptionRow(sub.id);
    const start = first.current_period_start.getTime();
    const end = first.current_period_end.getTime();
    // In period 1: its first instant, the middle, its last millisecond; the period end itself opens period 2.
    ctx.clock.set(new Date(end));
    await ingest(ctx, meterToken, events("api", sub.customerId, [start, start + 3_600_000, end - 1]));
    // Another customer's and another event name's usage never count.
    await ingest(ctx, meterToken, [{ name: "api", external_customer_id: "someone-else", timestamp: iso(start + 10) }]);
    await ingest(ctx, meterToken, events("other", sub.customerId, [start + 20]));
    const before = await subscriptionRow(sub.id);
    await sweep();
    await ingest(ctx, meterToken, events("api", sub.customerId, [end]));

    const one = (await ordersOf(sub.id)).at(-1)!;
    expect(one.billing_reason).toBe("subscription_cycle");
    // 3 × 12.5 = 37.5 → 38 (half away from zero), its own line after the plan's.
    expect(await itemsOf(one.id)).toEqual([
      { label: "Plan api", amount: 1000, product_price_id: expect.any(String), proration: false },
      { label: "api calls", amount: 38, product_price_id: sub.meteredPriceId, proration: false },
    ]);
    expect(one.subtotal_amount).toBe(1038);
    expect(before.current_period_end.getTime()).toBe(end);

    // Period 2: two events (one at its start), plus a late one for period 1 arriving now.
    const second = await subscriptionRow(sub.id);
    ctx.clock.set(new Date(second.current_period_end.getTime() - 1000));
    await ingest(ctx, meterToken, events("api", sub.customerId, [second.current_period_start.getTime() + 5000]));
    await ingest(ctx, meterToken, events("api", sub.customerId, [end - 2]));
    const two = await renew(sub.id);
    // 2 × 12.5 = 25; period 1 now has 4 events: 50 less the 38 billed = 12 more, on a line of its own.
    expect(two.items.map((item) => [item.label, item.amount])).toEqual([
      ["Plan api", 1000],
      ["api calls", 25],
      ["api calls (late usage, 2027-03-10 to 2027-04-10)", 12],
    ]);

    // Period 3: no usage, nothing late: only the plan; nothing is billed twice.
    const three = await renew(sub.id);
    expect(three.items.map((item) => [item.label, item.amount])).toEqual([["Plan api", 1000]]);
    const charges = await ctx.deps.db
      .selectFrom("subscription_usage_charges")
      .select(["quantity", "amount"])
      .where("subscription_id", "=", sub.id)
      .orderBy("period_start")
      .execute();
    expect(charges.map((charge) => [Number(charge.quantity), charge.amount])).toEqual([
      [4, 50],
      [2, 25],
      [0, 0],
    ]);

    // The order as the reference describes it.
    const response = await ctx.request({ method: "GET", url: `/v1/orders/${two.order.id}`, token: readToken });
    expect(response.statusCode).toBe(200);
    expectReferenceResponse("orders:get", 200, response.json());
    const body = response.json<{ items: { label: string; amount: number; product_price_id: string | null; proration: boolean }[] }>();
    expect(body.items.filter((item) => item.product_price_id === sub.meteredPriceId).map((item) => item.amount)).toEqual([25, 12]);
    // The official client reads it unchanged.
    const viaSdk = await createPolar({ accessToken: readToken, baseUrl }).orders.get(two.order.id);
    expect(viaSdk.items.map((item) => [item.label, item.amount, item.proration])).toEqual([
      ["Plan api", 1000, false],
      ["api calls", 25, false],
      ["api calls (late usage, 2027-03-10 to 2027-04-10)", 12, false],
    ]);
    expect(viaSdk.billing_reason).toBe("subscription_cycle");
  });

  it("caps a period's usage at cap_amount, exactly reached and exceeded, late events included", async () => {
    ctx.clock.set(new Date("2027-05-03T00:00:00.000Z"));
    const sub = await subscribe("capped", "50", 100);
    const first = await subscriptionRow(sub.id);
    const start = first.current_period_start.getTime();
    ctx.clock.set(new Date(start + 86_400_000));
    await ingest(ctx, meterToken, events("capped", sub.customerId, [start + 1, start + 2]));
    const one = await renew(sub.id);
    expect(one.items.at(-1)).toMatchObject({ label: "capped calls", amount: 100 });
    // A late event for the capped period adds nothing; three events in period 2 are capped too.
    const second = await subscriptionRow(sub.id);
    ctx.clock.set(new Date(second.current_period_start.getTime() + 86_400_000));
    await ingest(ctx, meterToken, events("capped", sub.customerId, [start + 3]));
    await ingest(
      ctx,
      meterToken,
      events(
        "capped",
        sub.customerId,
        [1, 2, 3].map((n) => second.current_period_start.getTime() + n),
      ),
    );
    const two = await renew(sub.id);
    expect(two.items.map((item) => [item.label, item.amount])).toEqual([
      ["Plan capped", 1000],
      ["capped calls", 100],
    ]);
  });

  it("bills the last period's usage when a subscription canceled at period end ends, and none after", async () => {
    ctx.clock.set(new Date("2027-06-15T12:00:00.000Z"));
    const sub = await subscribe("ending", "7", null);
    await oneEventThenUpdate(sub, "ending");
    const ordersBefore = (await ordersOf(sub.id)).length;
    const last = await renew(sub.id);
    const ended = await subscriptionRow(sub.id);
    expect(ended.status).toBe("canceled");
    expect((await ordersOf(sub.id)).length).toBe(ordersBefore + 1);
    expect(last.order.billing_reason).toBe("subscription_cycle");
    expect(last.order.status).toBe("paid");
    expect(last.items.map((item) => [item.label, item.amount])).toEqual([["ending calls", 7]]);
  });

  it("retries an ended subscription's unpaid usage order on the dunning schedule, then voids it; the subscription stays canceled", async () => {
    ctx.clock.set(new Date("2027-12-01T00:00:00.000Z"));
    const sub = await subscribe("unpaid", "9", null, { card: "tok_chargeCustomerFail" });
    const first = await subscriptionRow(sub.id);
    ctx.clock.set(new Date(first.current_period_start.getTime() + 60_000));
    await ingest(ctx, meterToken, events("unpaid", sub.customerId, [first.current_period_start.getTime() + 1]));
    await ctx.request({ method: "PATCH", url: `/v1/subscriptions/${sub.id}`, token, payload: { cancel_at_period_end: true } });
    const last = await renew(sub.id);
    expect(last.items.map((item) => [item.label, item.amount])).toEqual([["unpaid calls", 9]]);
    const attempts: string[] = [];
    for (let round = 0; round < 10; round += 1) {
      const order = await ctx.deps.db.selectFrom("orders").selectAll().where("id", "=", last.order.id).executeTakeFirstOrThrow();
      if (order.next_payment_attempt_at === null) break;
      attempts.push(order.next_payment_attempt_at.toISOString().slice(0, 10));
      ctx.clock.set(order.next_payment_attempt_at);
      await sweep();
      expect((await subscriptionRow(sub.id)).status).toBe("canceled");
    }
    expect(attempts).toHaveLength(4);
    const settled = await ctx.deps.db.selectFrom("orders").select("status").where("id", "=", last.order.id).executeTakeFirstOrThrow();
    expect(settled.status).toBe("void");
    const payments = await ctx.deps.db.selectFrom("payments").select("status").where("order_id", "=", last.order.id).execute();
    expect(payments.map((payment) => payment.status)).toEqual(Array(5).fill("failed"));
  });

  it("ends a canceled subscription without an order when its last period had no usage", async () => {
    ctx.clock.set(new Date("2027-07-01T00:00:00.000Z"));
    const sub = await subscribe("quiet", "7", null);
    await ctx.request({ method: "PATCH", url: `/v1/subscriptions/${sub.id}`, token, payload: { cancel_at_period_end: true } });
    const count = (await ordersOf(sub.id)).length;
    await renew(sub.id);
    expect((await subscriptionRow(sub.id)).status).toBe("canceled");
    expect((await ordersOf(sub.id)).length).toBe(count);
  });

  it("revoked mid-period, bills the usage up to the revoke; events after it are not the subscription's", async () => {
    ctx.clock.set(new Date("2027-09-01T00:00:00.000Z"));
    const sub = await subscribe("revoked", "3", null);
    const start = (await subscriptionRow(sub.id)).current_period_start.getTime();
    ctx.clock.set(new Date(start + 10 * 86_400_000));
    await ingest(ctx, meterToken, events("revoked", sub.customerId, [start + 1, start + 2]));
    const count = (await ordersOf(sub.id)).length;
    const revoked = await ctx.request({ method: "DELETE", url: `/v1/subscriptions/${sub.id}`, token });
    expect(revoked.statusCode, revoked.body).toBe(200);
    expect(revoked.json<{ status: string }>().status).toBe("canceled");
    const orders = await ordersOf(sub.id);
    expect(orders.length).toBe(count + 1);
    expect((await itemsOf(orders.at(-1)!.id)).map((item) => [item.label, item.amount])).toEqual([["revoked calls", 6]]);
    expect(orders.at(-1)!.status).toBe("paid");
    ctx.clock.set(new Date(start + 40 * 86_400_000));
    await ingest(ctx, meterToken, events("revoked", sub.customerId, [start + 20 * 86_400_000]));
    await sweep();
    expect((await ordersOf(sub.id)).length).toBe(count + 1);
  });

  it("pausing bills the closing period's usage; the resume bills the paused time's usage once, never the period again", async () => {
    ctx.clock.set(new Date("2027-10-01T00:00:00.000Z"));
    const sub = await subscribe("paused", "2", null);
    const first = await subscriptionRow(sub.id);
    const end = first.current_period_end.getTime();
    await oneEventThenUpdate(sub, "paused", { pause_at_period_end: true }, 86_400_000);
    const atPause = await renew(sub.id);
    expect((await subscriptionRow(sub.id)).status).toBe("paused");
    expect(atPause.items.map((item) => [item.label, item.amount])).toEqual([["paused calls", 2]]);
    // While paused: one event; then resumed.
    ctx.clock.set(new Date(end + 5 * 86_400_000));
    await ingest(ctx, meterToken, events("paused", sub.customerId, [end + 86_400_000]));
    const resumed = await ctx.request({ method: "PATCH", url: `/v1/subscriptions/${sub.id}`, token, payload: { resume: true } });
    expect(resumed.statusCode, resumed.body).toBe(200);
    const order = (await ordersOf(sub.id)).at(-1)!;
    expect((await itemsOf(order.id)).map((item) => [item.label, item.amount])).toEqual([
      ["Plan paused", 1000],
      ["paused calls", 2],
    ]);
  });

  it("bills exactly from a meter created after the events, while its back-fill is pending and after it ran", async () => {
    ctx.clock.set(new Date("2027-11-02T10:30:00.000Z"));
    const sub = await subscribe("early", "5", null);
    const start = (await subscriptionRow(sub.id)).current_period_start.getTime();
    ctx.clock.set(new Date(start + 3_600_000));
    await ingest(ctx, meterToken, events("late-meter", sub.customerId, [start + 1, start + 2, start + 3]));
    const meterId = await createMeter("late-meter");
    const pending = await ctx.deps.db.selectFrom("meters").select("backfilled_at").where("id", "=", meterId).executeTakeFirstOrThrow();
    expect(pending.backfilled_at).toBeNull();
    const plan = await ctx.deps.db
      .selectFrom("product_prices")
      .select("product_id")
      .where("id", "=", sub.meteredPriceId)
      .executeTakeFirstOrThrow();
    await ctx.deps.db
      .updateTable("product_prices")
      .set({ meter_id: meterId })
      .where("product_id", "=", plan.product_id)
      .where("amount_type", "=", "metered_unit")
      .execute();
    const one = await renew(sub.id);
    expect(one.items.at(-1)).toMatchObject({ label: "early calls", amount: 15 });
    await runBackfills(ctx);
    const two = await renew(sub.id);
    // After the back-fill the buckets hold them: nothing changed, nothing late.
    expect(two.items.map((item) => [item.label, item.amount])).toEqual([["Plan early", 1000]]);
  });

  it("counts usage ingested while the renewal runs exactly once: in the closing order or as late usage on the next", async () => {
    ctx.clock.set(new Date("2027-08-05T08:00:00.000Z"));
    const sub = await subscribe("racing", "1", null);
    const first = await subscriptionRow(sub.id);
    const start = first.current_period_start.getTime();
    const end = first.current_period_end.getTime();
    ctx.clock.set(new Date(end));
    await ingest(ctx, meterToken, events("racing", sub.customerId, [start + 1]));
    const batches = Array.from({ length: 8 }, (_, batch) =>
      events(
        "racing",
        sub.customerId,
        Array.from({ length: 25 }, (_, n) => start + 1000 + batch * 100 + n),
      ),
    );
    await Promise.all([sweep(), ...batches.map((batch) => ingest(ctx, meterToken, batch))]);
    const two = await renew(sub.id);
    const one = (await ordersOf(sub.id)).at(-2)!;
    const billed = [...(await itemsOf(one.id)), ...two.items].filter((item) => item.label.startsWith("racing calls"));
    // 201 events at 1 cent, each counted once across the two orders.
    expect(billed.reduce((sum, item) => sum + item.amount, 0)).toBe(201);
  });

  it("runs months in seconds on the sandbox test clock: each advance bills the usage of the periods it closes", async () => {
    ctx.clock.set(new Date("2028-01-20T15:00:00.000Z"));
    const organization = await createOrganization(ctx.deps);
    const sandbox = await createOrganizationToken(ctx.deps, organization.id, [
      "checkouts:write",
      "subscriptions:write",
      "meters:write",
      "events:write",
      "orders:read",
    ]);
    const meter = await ctx.request({
      method: "POST",
      url: "/v1/meters/",
      token: sandbox,
      payload: {
        name: "Builds",
        filter: { conjunction: "and", clauses: [{ property: "name", operator: "eq", value: "build" }] },
        aggregation: { func: "count" },
      },
    });
    expect(meter.statusCode, meter.body).toBe(201);
    const plan = await createProduct(ctx.deps, organization.id, {
      product: { name: "CI", recurring_interval: "month", recurring_interval_count: 1 },
      prices: [
        { amount_type: "fixed", price_amount: 500 },
        {
          amount_type: "metered_unit",
          unit_amount: "0.75",
          cap_amount: null,
          meter_id: meter.json<{ id: string }>().id,
          meter_name: "Builds",
        },
      ],
    });
    const { checkout } = await buyThroughCheckout(ctx, sandbox, plan.product.id, { buyer: { customer_email: "ci@example.com" } });
    const advance = async (days: number) => {
      const response = await ctx.request({
        method: "POST",
        url: "/v1/test-clock/advance",
        token: sandbox,
        payload: { seconds: days * 86_400 },
      });
      expect(response.statusCode, response.body).toBe(200);
      return response.json<{ now: string }>().now;
    };
    const usageLines = async () => {
      const orders = await ordersOf(checkout.subscription_id);
      const items = await Promise.all(orders.map((order) => itemsOf(order.id)));
      return items
        .flat()
        .filter((item) => item.label.startsWith("Builds"))
        .map((item) => item.amount);
    };
    // Month 1: 3 builds (3 × 0.75 = 2.25 → 2); month 2: 2 builds (1.5 → 2); month 3: none.
    let now = await advance(10);
    const build = (count: number) =>
      ingest(
        ctx,
        sandbox,
        Array.from({ length: count }, () => ({ name: "build", customer_id: checkout.customer_id, timestamp: now })),
      );
    await build(3);
    now = await advance(31);
    await build(2);
    await advance(31);
    await advance(31);
    expect(await usageLines()).toEqual([2, 2]);
  });
});

describe("credits of meter_credit benefits on metered lines", () => {
  const usageOf = (items: { label: string; amount: number }[], label: string) =>
    items.filter((item) => item.label.startsWith(label)).map((item) => [item.label, item.amount]);
  const chargesOf = async (subscriptionId: string) =>
    (
      await ctx.deps.db
        .selectFrom("subscription_usage_charges")
        .select(["quantity", "credited_units", "amount"])
        .where("subscription_id", "=", subscriptionId)
        .orderBy("period_start")
        .execute()
    ).map((charge) => [Number(charge.quantity), Number(charge.credited_units), charge.amount]);

  it("bills usage less the period's credits (more credits than usage, as many, fewer), late usage against the same credits", async () => {
    ctx.clock.set(new Date("2028-03-04T10:00:00.000Z"));
    // 5 credited units a period (not rolled over), 10 cents a unit.
    const sub = await subscribe("credited", "10", null, { credits: { units: 5, rollover: false } });
    expect((await runMeterCredits(ctx)).map((p) => p.kind)).toEqual(["grant"]);
    // Period 1: 3 used of 5 credited: nothing to pay, the line says so with 0.
    const { start: p1, renewal: one } = await billPeriod(sub, "credited", (start) => [start + 1, start + 2, start + 3]);
    expect(usageOf(one.items, "credited calls")).toEqual([["credited calls", 0]]);
    // The paid renewal resets the window and credits the next 5 (the 2 unused are not rollover units).
    expect((await runMeterCredits(ctx)).map((p) => p.kind)).toEqual(["cycle"]);

    // Period 2: exactly 5 used; meanwhile 2 late events bring period 1 to its 5 credits: still free.
    const two = (await billPeriod(sub, "credited", (p2) => [p2, p2 + 1, p2 + 2, p2 + 3, p2 + 4, p1 + 4, p1 + 5])).renewal;
    expect(usageOf(two.items, "credited calls")).toEqual([["credited calls", 0]]);
    await runMeterCredits(ctx);

    // Period 3: 8 used, 5 credited: 3 × 10 = 30. One more late event for period 1 (its credits used up): 10 late.
    const three = (await billPeriod(sub, "credited", (p3) => [...Array.from({ length: 8 }, (_, n) => p3 + n), p1 + 6])).renewal;
    expect(usageOf(three.items, "credited calls")).toEqual([
      ["credited calls", 30],
      [expect.stringMatching(/^credited calls \(late usage, /), 10],
    ]);
    expect(await chargesOf(sub.id)).toEqual([
      [6, 5, 10],
      [5, 5, 0],
      [8, 5, 30],
    ]);
    // The order's subtotal is the plan and what is left to pay for usage.
    expect(three.order.subtotal_amount).toBe(1040);
    expect((await runMeterCredits(ctx)).map((p) => p.kind)).toEqual(["cycle"]);
  });

  it("spends credits that outlive a period across periods: each period subtracts what the earlier ones left", async () => {
    ctx.clock.set(new Date("2028-06-07T10:00:00.000Z"));
    const sub = await subscribe("pack", "10", null);
    // A one-time pack of 10 units, bought by the same customer: its window never resets.
    const pack = await createProduct(ctx.deps, orgId, {
      product: { name: "Pack of 10" },
      prices: [{ amount_type: "fixed", price_amount: 300 }],
      benefits: [{ type: "meter_credit", description: "10 pack units", properties: { units: 10, rollover: false, meter_id: sub.meterId } }],
    });
    await buyThroughCheckout(ctx, token, pack.product.id, { checkout: { customer_id: sub.customerId } });
    expect((await runMeterCredits(ctx)).map((p) => p.kind)).toEqual(["grant"]);
    const one = (await billPeriod(sub, "pack", (p1) => Array.from({ length: 6 }, (_, n) => p1 + n))).renewal;
    expect(usageOf(one.items, "pack calls")).toEqual([["pack calls", 0]]);
    // Period 2: 7 used, 4 left of the pack: 3 × 10.
    const two = (await billPeriod(sub, "pack", (p2) => Array.from({ length: 7 }, (_, n) => p2 + n))).renewal;
    expect(usageOf(two.items, "pack calls")).toEqual([["pack calls", 30]]);
    expect(await chargesOf(sub.id)).toEqual([
      [6, 10, 0],
      [7, 4, 30],
    ]);
  });
});

describe("discounts on metered lines", () => {
  const amountsOf = (order: { subtotal_amount: number; discount_amount: number; net_amount: number }) => [
    order.subtotal_amount,
    order.discount_amount,
    order.net_amount,
  ];

  it("a percentage discount covers the static and usage lines together, rounded half away from zero once", async () => {
    ctx.clock.set(new Date("2028-09-03T10:00:00.000Z"));
    // 10% off forever; usage of 5 cents a call.
    const discount = await createDiscount(ctx.deps, orgId, { duration: "forever", basis_points: 1000 });
    const sub = await subscribe("pct", "5", null, { discountId: discount.id });
    // 1000 + 5 × 5 = 1025: 10% is 102.5 → 103 (the static line alone would give 100).
    const one = (await billPeriod(sub, "pct", (p1) => [p1 + 1, p1 + 2, p1 + 3, p1 + 4, p1 + 5])).renewal;
    expect(amountsOf(one.order)).toEqual([1025, 103, 922]);
    expect(one.order.discount_id).toBe(discount.id);
    // The subscription's own amount stays its static price less the discount.
    expect((await subscriptionRow(sub.id)).amount).toBe(900);
    // 1000 + 4 × 5 = 1020: exactly 102; then a period without usage: 100.
    const second = await subscriptionRow(sub.id);
    const p2 = second.current_period_start.getTime();
    ctx.clock.set(new Date(p2 + 86_400_000));
    await ingest(ctx, meterToken, events("pct", sub.customerId, [p2 + 1, p2 + 2, p2 + 3, p2 + 4]));
    expect(amountsOf((await renew(sub.id)).order)).toEqual([1020, 102, 918]);
    expect(amountsOf((await renew(sub.id)).order)).toEqual([1000, 100, 900]);
  });

  it("a fixed discount takes off at most the static and usage lines together", async () => {
    ctx.clock.set(new Date("2028-10-03T10:00:00.000Z"));
    const discount = await createDiscount(ctx.deps, orgId, {
      type: "fixed",
      duration: "forever",
      basis_points: null,
      amounts: JSON.stringify({ usd: 1010 }),
    });
    const sub = await subscribe("fixed", "5", null, { discountId: discount.id });
    const first = await subscriptionRow(sub.id);
    const p1 = first.current_period_start.getTime();
    ctx.clock.set(new Date(p1 + 86_400_000));
    // 1000 + 3 × 5 = 1015 less 1010: 5 left to pay.
    await ingest(ctx, meterToken, events("fixed", sub.customerId, [p1 + 1, p1 + 2, p1 + 3]));
    expect(amountsOf((await renew(sub.id)).order)).toEqual([1015, 1010, 5]);
    // 1000 + 1 × 5 = 1005 under the 1010 off: the discount stops at the lines' sum, nothing to pay.
    const second = await subscriptionRow(sub.id);
    ctx.clock.set(new Date(second.current_period_start.getTime() + 86_400_000));
    await ingest(ctx, meterToken, events("fixed", sub.customerId, [second.current_period_start.getTime() + 1]));
    const two = await renew(sub.id);
    expect(amountsOf(two.order)).toEqual([1005, 1005, 0]);
    expect(two.order.status).toBe("paid");
  });

  it("the last usage order of an ended subscription keeps a discount still running, never an expired one", async () => {
    ctx.clock.set(new Date("2028-11-03T10:00:00.000Z"));
    const forever = await createDiscount(ctx.deps, orgId, { duration: "forever", basis_points: 5000 });
    const once = await createDiscount(ctx.deps, orgId, { duration: "once", basis_points: 5000 });
    const lastOrder = async (discountId: string, eventName: string) => {
      const sub = await subscribe(eventName, "7", null, { discountId });
      await oneEventThenUpdate(sub, eventName);
      return (await renew(sub.id)).order;
    };
    // 7 at 50%: 3.5 → 4 off. A `once` discount covered the first (in advance) charge only.
    expect(amountsOf(await lastOrder(forever.id, "end-forever"))).toEqual([7, 4, 3]);
    expect(amountsOf(await lastOrder(once.id, "end-once"))).toEqual([7, 0, 7]);
  });
});

describe("subscription.meters[]: the current period's usage so far", () => {
  it("answers each metered price's meter with consumed and credited units and the amount due so far, as the reference and the SDK read it", async () => {
    ctx.clock.set(new Date("2028-12-03T10:00:00.000Z"));
    const sub = await subscribe("shown", "10", null, { credits: { units: 2, rollover: false } });
    await runMeterCredits(ctx);
    const reader = await createOrganizationToken(ctx.deps, orgId, ["subscriptions:read", "customers:read"]);
    const read = async () => {
      const response = await ctx.request({ method: "GET", url: `/v1/subscriptions/${sub.id}`, token: reader });
      expect(response.statusCode, response.body).toBe(200);
      expectReferenceResponse("subscriptions:get", 200, response.json());
      return response.json<{
        meters: { id: string; meter_id: string; consumed_units: number; credited_units: number; amount: number; meter: { name: string } }[];
      }>().meters;
    };
    const empty = await read();
    expect(empty.map((m) => [m.meter_id, m.consumed_units, m.credited_units, m.amount, m.meter.name])).toEqual([
      [sub.meterId, 0, 2, 0, "shown calls"],
    ]);

    // 5 events so far; the event of the day before the period is not the period's usage, but the credit's window has
    // been open since the grant (all time), so it used 1 of the 2 credits: 5 − 1 = 4 × 10 due.
    const start = (await subscriptionRow(sub.id)).current_period_start.getTime();
    ctx.clock.set(new Date(start + 3 * 86_400_000));
    await ingest(ctx, meterToken, events("shown", sub.customerId, [start - 86_400_000, ...[1, 2, 3, 4, 5].map((n) => start + n)]));
    const meters = await read();
    expect(meters.map((m) => [m.consumed_units, m.credited_units, m.amount])).toEqual([[5, 1, 40]]);
    // A stable id across reads.
    expect(meters[0]!.id).toBe(empty[0]!.id);

    // The list and the official client read the same.
    const list = await ctx.request({ method: "GET", url: `/v1/subscriptions/?customer_id=${sub.customerId}`, token: reader });
    expectReferenceResponse("subscriptions:list", 200, list.json());
    expect(list.json<{ items: { meters: { amount: number }[] }[] }>().items.map((s) => s.meters.map((m) => m.amount))).toEqual([[40]]);
    const viaSdk = await createPolar({ accessToken: reader, baseUrl }).subscriptions.get(sub.id);
    expect(viaSdk.meters.map((m) => [m.consumed_units, m.credited_units, m.amount, m.meter_id])).toEqual([[5, 1, 40, sub.meterId]]);

    // The customer's state carries them on its active subscription, without the meter object.
    const state = await ctx.request({ method: "GET", url: `/v1/customers/${sub.customerId}/state`, token: reader });
    expect(state.statusCode, state.body).toBe(200);
    expectReferenceResponse("customers:get_state", 200, state.json());
    expect(state.json<{ active_subscriptions: { meters: unknown[] }[] }>().active_subscriptions[0]!.meters).toEqual([
      {
        id: meters[0]!.id,
        created_at: expect.any(String),
        modified_at: null,
        consumed_units: 5,
        credited_units: 1,
        amount: 40,
        meter_id: sub.meterId,
      },
    ]);

    // The customer's portal shows the same, the meter named only.
    const session = await createCustomerSessionToken(ctx.deps, sub.customerId);
    const portal = await ctx.request({ method: "GET", url: `/v1/customer-portal/subscriptions/${sub.id}`, token: session });
    expect(portal.statusCode, portal.body).toBe(200);
    expectReferenceResponse("customer_portal:subscriptions:get", 200, portal.json());
    const portalMeters = portal.json<{ meters: Record<string, unknown>[] }>().meters;
    expect(portalMeters).toEqual([
      {
        id: meters[0]!.id,
        created_at: expect.any(String),
        modified_at: null,
        consumed_units: 5,
        credited_units: 1,
        amount: 40,
        meter_id: sub.meterId,
        meter: { id: sub.meterId, name: "shown calls", created_at: expect.any(String), modified_at: null },
      },
    ]);
    const portalList = await ctx.request({ method: "GET", url: "/v1/customer-portal/subscriptions/", token: session });
    expectReferenceResponse("customer_portal:subscriptions:list", 200, portalList.json());
    expect(portalList.json<{ items: { meters: unknown[] }[] }>().items.map((s) => s.meters)).toEqual([portalMeters]);
  });
});
