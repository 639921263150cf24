import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestContext } from "../../helpers/context.ts";
import { createCustomerSessionToken, createOrganization, createProduct, openOrganizationContext } from "../../helpers/factories.ts";
import { expectReferenceResponse } from "../../helpers/reference.ts";
import { buyThroughCheckout, eventTypesOf } from "./subscription-helpers.ts";

// Product and seat changes, with each proration_behavior, priced in integer minor units by the one
// rounding rule (half away from zero), billed at the next renewal or at once.

let ctx: TestContext;
let org: { id: string; slug: string };
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

const HOUR = 60 * 60 * 1000;
const DAY = 24 * HOUR;
/** 1 April to 1 May: thirty days, so halves and thirtieths of the period are exact. */
const APRIL_1 = new Date("2027-04-01T00:00:00.000Z");
const MAY_1 = new Date("2027-05-01T00:00:00.000Z");

let plans = 0;
const plan = (amount: number, extra: Record<string, unknown> = {}, currency = "usd") =>
  createProduct(ctx.deps, org.id, {
    product: { name: `Plan ${(plans += 1)}`, recurring_interval: "month", recurring_interval_count: 1, visibility: "public", ...extra },
    prices: [{ amount_type: "fixed", price_amount: amount, price_currency: currency }],
    benefits: [{ type: "license_keys", description: `Plan ${plans} key` }],
  });
const seatPlan = () =>
  createProduct(ctx.deps, org.id, {
    product: { name: `Seats ${(plans += 1)}`, recurring_interval: "month", recurring_interval_count: 1 },
    prices: [
      {
        amount_type: "seat_based",
        seat_tiers: JSON.stringify([
          { min_seats: 2, max_seats: 10, price_per_seat: 500 },
          { min_seats: 11, max_seats: 20, price_per_seat: 400 },
        ]),
      },
    ],
  });

let buyers = 0;
/** Buys `productId` on 1 April (a 30-day first period) with a card that pays, or the given one. */
async function subscribe(productId: string, options: { card?: string; checkout?: Record<string, unknown> } = {}) {
  ctx.clock.set(APRIL_1);
  const { checkout } = await buyThroughCheckout(ctx, checkoutToken, productId, {
    buyer: { customer_email: `changer${(buyers += 1)}@example.com` },
    ...options,
  });
  return { id: checkout.subscription_id, customerId: checkout.customer_id };
}

const patch = (id: string, payload: Record<string, unknown>, token = writeToken) =>
  ctx.request({ method: "PATCH", url: `/v1/subscriptions/${id}`, token, payload });
async function patched(id: string, payload: Record<string, unknown>) {
  const response = await patch(id, payload);
  expect(response.statusCode, response.body).toBe(200);
  expectReferenceResponse("subscriptions:update", 200, response.json());
  return response.json();
}
const row = (id: string) => ctx.deps.db.selectFrom("subscriptions").selectAll().where("id", "=", id).executeTakeFirstOrThrow();
const entries = (id: string) =>
  ctx.deps.db
    .selectFrom("subscription_billing_entries")
    .select(["label", "amount", "order_id"])
    .where("subscription_id", "=", id)
    .orderBy("created_at")
    .orderBy("amount")
    .execute();
const orders = (id: string) =>
  ctx.deps.db.selectFrom("orders").selectAll().where("subscription_id", "=", id).orderBy("created_at").orderBy("invoice_number").execute();
const items = (orderId: string) =>
  ctx.deps.db
    .selectFrom("order_items")
    .select(["label", "amount", "proration"])
    .where("order_id", "=", orderId)
    .orderBy("position")
    .execute();
const keyStatuses = async (customerId: string) =>
  (await ctx.deps.db.selectFrom("license_keys").select("status").where("customer_id", "=", customerId).orderBy("created_at").execute()).map(
    (key) => key.status,
  );
const renewAt = async (at: Date) => {
  ctx.clock.set(at);
  await ctx.services.subscriptionRenewals.sweep();
};
/** An independent statement of the rule: `amount × part / whole`, halves away from zero. */
const share = (amount: number, part: number, whole: number) => Math.sign(amount) * Math.round((Math.abs(amount) * part) / whole);

describe("product changes", () => {
  it("prorates an upgrade at mid-period, rounding halves away from zero, and bills it with the next renewal", async () => {
    const [cheap, dear] = [await plan(999), await plan(3001)];
    const { id, customerId } = await subscribe(cheap.product.id);
    ctx.clock.set(new Date(APRIL_1.getTime() + 15 * DAY));
    const body = await patched(id, { product_id: dear.product.id, proration_behavior: "prorate" });
    expect(body).toMatchObject({ product_id: dear.product.id, amount: 3001, current_period_end: MAY_1.toISOString() });
    // 999 / 2 = 499.5 and 3001 / 2 = 1500.5: both halves go away from zero.
    expect(await entries(id)).toEqual([
      { label: `Unused time on ${cheap.product.name}`, amount: -500, order_id: null },
      { label: `Remaining time on ${dear.product.name}`, amount: 1501, order_id: null },
    ]);
    expect(await orders(id)).toHaveLength(1);
    // The old plan's key goes, the new plan's comes.
    expect(await keyStatuses(customerId)).toEqual(["revoked", "granted"]);
    expect((await eventTypesOf(ctx, id)).slice(-1)).toEqual(["subscription.updated"]);

    await renewAt(MAY_1);
    const renewal = (await orders(id))[1]!;
    expect(renewal).toMatchObject({ billing_reason: "subscription_cycle", status: "paid", subtotal_amount: 3001 - 500 + 1501 });
    expect(await items(renewal.id)).toEqual([
      { label: dear.product.name, amount: 3001, proration: false },
      { label: `Remaining time on ${dear.product.name}`, amount: 1501, proration: true },
      { label: `Unused time on ${cheap.product.name}`, amount: -500, proration: true },
    ]);
    expect((await entries(id)).every((entry) => entry.order_id === renewal.id)).toBe(true);
    const api = (await ctx.request({ method: "GET", url: `/v1/orders/${renewal.id}`, token: ctx.ownerToken })).json();
    expect(api.items.filter((item: { proration: boolean }) => item.proration)).toHaveLength(2);
  });

  it("invoices a downgrade's net credit against the next renewal rather than paying it out", async () => {
    const [dear, cheap] = [await plan(3000), await plan(1000)];
    const { id } = await subscribe(dear.product.id);
    ctx.clock.set(new Date(APRIL_1.getTime() + 15 * DAY));
    await patched(id, { product_id: cheap.product.id, proration_behavior: "invoice" });
    // Credit 1500, debit 500: nothing to charge now, so no order; the credit waits.
    expect(await orders(id)).toHaveLength(1);
    expect((await entries(id)).map((entry) => entry.amount)).toEqual([-1500, 500]);

    await renewAt(MAY_1);
    const renewal = (await orders(id))[1]!;
    // 1000 for May, less the net 1000 credit: a paid order of 0 with no charge taken.
    expect(renewal).toMatchObject({ subtotal_amount: 0, total_amount: 0, status: "paid" });
    expect(await ctx.deps.db.selectFrom("payments").select("id").where("order_id", "=", renewal.id).execute()).toEqual([]);
  });

  it("carries a credit larger than the next renewal over to the one after, split so that no order goes below zero", async () => {
    const [dear, cheap] = [await plan(9000), await plan(1000)];
    const { id } = await subscribe(dear.product.id);
    ctx.clock.set(new Date(APRIL_1.getTime() + 15 * DAY));
    await patched(id, { product_id: cheap.product.id });
    // Credit 4500, debit 500 (the organization's default, prorate).
    await renewAt(MAY_1);
    const may = (await orders(id))[1]!;
    expect(may).toMatchObject({ subtotal_amount: 0, status: "paid" });
    expect((await items(may.id)).map((item) => item.amount)).toEqual([1000, 500, -1500]);
    const waiting = (await entries(id)).filter((entry) => entry.order_id === null);
    expect(waiting.map((entry) => entry.amount)).toEqual([-3000]);

    await renewAt(new Date("2027-06-01T00:00:00.000Z"));
    await renewAt(new Date("2027-07-01T00:00:00.000Z"));
    await renewAt(new Date("2027-08-01T00:00:00.000Z"));
    const [june, july, august] = (await orders(id)).slice(2);
    expect([june!.subtotal_amount, july!.subtotal_amount, august!.subtotal_amount]).toEqual([0, 0, 0]);
    await renewAt(new Date("2027-09-01T00:00:00.000Z"));
    expect((await orders(id))[5]).toMatchObject({ subtotal_amount: 1000 });
    expect((await entries(id)).filter((entry) => entry.order_id === null)).toEqual([]);
  });

  it("charges an invoiced upgrade at once in a subscription_update order", async () => {
    const [cheap, dear] = [await plan(1000), await plan(4000)];
    const { id } = await subscribe(cheap.product.id);
    ctx.clock.set(new Date(APRIL_1.getTime() + 20 * DAY));
    await patched(id, { product_id: dear.product.id, proration_behavior: "invoice" });
    const update = (await orders(id))[1]!;
    const part = 10 * DAY;
    const whole = 30 * DAY;
    expect(update).toMatchObject({ billing_reason: "subscription_update", status: "paid" });
    expect(update.subtotal_amount).toBe(share(4000, part, whole) - share(1000, part, whole));
    expect(update.receipt_number).not.toBeNull();
    expect(await ctx.deps.db.selectFrom("payments").select(["status", "amount"]).where("order_id", "=", update.id).execute()).toEqual([
      { status: "succeeded", amount: update.total_amount },
    ]);
  });

  it("rolls the whole change back with 402 when the immediate charge is declined", async () => {
    const [cheap, dear] = [await plan(1000), await plan(4000)];
    const { id } = await subscribe(cheap.product.id, { card: "tok_chargeCustomerFail" });
    ctx.clock.set(new Date(APRIL_1.getTime() + 10 * DAY));
    const before = await row(id);
    const response = await patch(id, { product_id: dear.product.id, proration_behavior: "invoice" });
    expect(response.statusCode).toBe(402);
    expect(response.json()).toEqual({ error: "PaymentFailed", detail: "Payment failed with reason: card_error." });
    expectReferenceResponse("subscriptions:update", 402, response.json());
    expect(await row(id)).toEqual(before);
    expect(await entries(id)).toEqual([]);
    expect(await orders(id)).toHaveLength(1);
    expect(await ctx.deps.db.selectFrom("subscription_prices").select("amount").where("subscription_id", "=", id).execute()).toEqual([
      { amount: 1000 },
    ]);
  });

  it("restarts the period on an interval change, crediting the unused time against the new period's charge", async () => {
    const monthly = await plan(1000);
    const yearly = await plan(10000, { recurring_interval: "year" });
    const { id } = await subscribe(monthly.product.id);
    const changedAt = new Date(APRIL_1.getTime() + 15 * DAY);
    ctx.clock.set(changedAt);
    const body = await patched(id, { product_id: yearly.product.id });
    expect(body).toMatchObject({
      recurring_interval: "year",
      current_period_start: changedAt.toISOString(),
      current_period_end: "2028-04-16T00:00:00.000Z",
    });
    const update = (await orders(id))[1]!;
    expect(update).toMatchObject({ billing_reason: "subscription_update", status: "paid", subtotal_amount: 10000 - 500 });
    expect(await items(update.id)).toEqual([
      { label: yearly.product.name, amount: 10000, proration: false },
      { label: `Unused time on ${monthly.product.name}`, amount: -500, proration: true },
    ]);
  });

  it("prorates a change on the last day of the period by what is left of it, and nothing at its very end", async () => {
    const [cheap, dear] = [await plan(999), await plan(3001)];
    const { id } = await subscribe(cheap.product.id);
    const left = 12 * HOUR;
    ctx.clock.set(new Date(MAY_1.getTime() - left));
    await patched(id, { product_id: dear.product.id });
    expect((await entries(id)).map((entry) => entry.amount)).toEqual([-share(999, left, 30 * DAY), share(3001, left, 30 * DAY)]);

    const other = await subscribe(cheap.product.id);
    // The clock stops at the period end before the sweep renews it: nothing of the period is left.
    ctx.clock.set(MAY_1);
    await patched(other.id, { product_id: dear.product.id });
    expect(await entries(other.id)).toEqual([]);
  });

  it("schedules a next_period change, shows it as pending_update, and applies it at the renewal", async () => {
    const [cheap, dear] = [await plan(1000), await plan(3000)];
    const { id, customerId } = await subscribe(cheap.product.id);
    ctx.clock.set(new Date(APRIL_1.getTime() + 5 * DAY));
    const body = await patched(id, { product_id: dear.product.id, proration_behavior: "next_period" });
    expect(body.product_id).toBe(cheap.product.id);
    expect(body.pending_update).toMatchObject({ product_id: dear.product.id, seats: null, applies_at: MAY_1.toISOString() });
    expect(await entries(id)).toEqual([]);
    expect(await keyStatuses(customerId)).toEqual(["granted"]);

    await renewAt(MAY_1);
    const after = await row(id);
    expect(after).toMatchObject({ product_id: dear.product.id, pending_update: null, amount: 3000 });
    expect((await orders(id))[1]).toMatchObject({ subtotal_amount: 3000 });
    expect(await keyStatuses(customerId)).toEqual(["revoked", "granted"]);
  });

  it("drops a scheduled change when `pending_update: null` clears it", async () => {
    const [cheap, dear] = [await plan(1000), await plan(3000)];
    const { id } = await subscribe(cheap.product.id);
    await patched(id, { product_id: dear.product.id, proration_behavior: "next_period" });
    expect((await patched(id, { pending_update: null })).pending_update).toBeNull();
    await renewAt(MAY_1);
    expect(await row(id)).toMatchObject({ product_id: cheap.product.id, amount: 1000 });
  });

  it("refuses `reset` unless the organization enabled it, and with it restarts the period at the full new price", async () => {
    const [cheap, dear] = [await plan(1000), await plan(3000)];
    const { id } = await subscribe(cheap.product.id);
    ctx.clock.set(new Date(APRIL_1.getTime() + 15 * DAY));
    const refused = await patch(id, { product_id: dear.product.id, proration_behavior: "reset" });
    expect(refused.statusCode).toBe(422);
    expect(refused.json().detail[0]).toMatchObject({
      loc: ["body", "proration_behavior"],
      msg: "The 'reset' proration behavior is not enabled for this organization.",
    });
    expect((await row(id)).product_id).toBe(cheap.product.id);

    await ctx.deps.db
      .updateTable("organizations")
      .set({ feature_settings: JSON.stringify({ reset_proration_behavior_enabled: true }) })
      .where("id", "=", org.id)
      .execute();
    try {
      const body = await patched(id, { product_id: dear.product.id, proration_behavior: "reset" });
      expect(body).toMatchObject({ current_period_start: ctx.clock.now().toISOString(), current_period_end: "2027-05-16T00:00:00.000Z" });
      const update = (await orders(id))[1]!;
      expect(await items(update.id)).toEqual([{ label: dear.product.name, amount: 3000, proration: false }]);
      expect(await entries(id)).toEqual([]);
    } finally {
      await ctx.deps.db
        .updateTable("organizations")
        .set({ feature_settings: JSON.stringify({}) })
        .where("id", "=", org.id)
        .execute();
    }
  });

  it("changes a trial's product without prorating, the trial lasting what the new product's would", async () => {
    const [short, long] = [
      await plan(1000, { trial_interval: "day", trial_interval_count: 7 }),
      await plan(3000, { trial_interval: "day", trial_interval_count: 14 }),
    ];
    const { id } = await subscribe(short.product.id);
    expect((await row(id)).status).toBe("trialing");
    ctx.clock.set(new Date(APRIL_1.getTime() + 3 * DAY));
    const body = await patched(id, { product_id: long.product.id });
    expect(body).toMatchObject({
      status: "trialing",
      trial_end: "2027-04-15T00:00:00.000Z",
      current_period_end: "2027-04-15T00:00:00.000Z",
    });
    expect(await entries(id)).toEqual([]);
    // To a product without a trial: the trial is over, it converts and is charged now.
    const none = await plan(2000);
    const converted = await patched(id, { product_id: none.product.id });
    expect(converted.status).toBe("active");
    expect((await orders(id)).at(-1)).toMatchObject({ billing_reason: "subscription_cycle", subtotal_amount: 2000, status: "paid" });
  });
});

describe("a change racing a renewal", () => {
  it("is applied before or after the renewal, never half: one renewal order, and the new product billed either way", async () => {
    for (let round = 0; round < 4; round += 1) {
      const [cheap, dear] = [await plan(1000), await plan(3000)];
      const { id } = await subscribe(cheap.product.id);
      ctx.clock.set(MAY_1);
      const [, response] = await Promise.all([
        ctx.services.subscriptionRenewals.sweep(),
        patch(id, { product_id: dear.product.id, proration_behavior: "prorate" }),
      ]);
      expect(response.statusCode, response.body).toBe(200);
      // A sweep skips a row the change holds locked; the next sweep (a minute later) renews it.
      await ctx.services.subscriptionRenewals.sweep();
      const renewals = (await orders(id)).filter((order) => order.billing_reason === "subscription_cycle");
      expect(renewals).toHaveLength(1);
      const renewed = await items(renewals[0]!.id);
      const waiting = (await entries(id)).map((entry) => entry.amount);
      expect(await row(id)).toMatchObject({ product_id: dear.product.id, amount: 3000, current_period_start: MAY_1 });
      if (renewed[0]!.label === dear.product.name) {
        // The change came first, with nothing of April left to prorate; May billed the new product.
        expect(waiting).toEqual([]);
        expect(renewed.map((item) => item.amount)).toEqual([3000]);
      } else {
        // The renewal came first; the change prorates the whole of May, waiting for June.
        expect(renewed.map((item) => item.amount)).toEqual([1000]);
        expect(waiting).toEqual([-1000, 3000]);
      }
    }
  });
});

describe("product changes: refusals write nothing", () => {
  let id: string;
  let snapshot: unknown;
  const refusal = (productId: () => string, msg: string, extra: Record<string, unknown> = {}) => ({
    status: 422,
    async request() {
      return patch(id, { product_id: productId(), ...extra });
    },
    check: (body: { detail: { loc: string[]; msg: string }[] }) => {
      expect(body.detail[0]).toMatchObject({ loc: ["body", "product_id"], msg });
    },
  });
  const products: Record<string, string> = {};

  beforeAll(async () => {
    const current = await plan(1000);
    ({ id } = await subscribe(current.product.id));
    const foreign = await createOrganization(ctx.deps);
    products.foreign = (
      await createProduct(ctx.deps, foreign.id, { product: { recurring_interval: "month", recurring_interval_count: 1 } })
    ).product.id;
    products.archived = (await plan(2000, { is_archived: true })).product.id;
    products.oneTime = (await plan(2000, { recurring_interval: null, recurring_interval_count: null })).product.id;
    products.euro = (await plan(2000, {}, "eur")).product.id;
    products.custom = (
      await createProduct(ctx.deps, org.id, {
        product: { recurring_interval: "month", recurring_interval_count: 1 },
        prices: [{ amount_type: "custom", minimum_amount: 500 }],
      })
    ).product.id;
    ctx.clock.set(new Date(APRIL_1.getTime() + 10 * DAY));
    snapshot = { row: await row(id), entries: await entries(id), orders: (await orders(id)).length };
  });

  const cases = [
    { name: "an unknown product", ...refusal(() => randomUUID(), "Product does not exist.") },
    { name: "another organization's product", ...refusal(() => products.foreign!, "Product does not exist.") },
    { name: "an archived product", ...refusal(() => products.archived!, "Product is archived.") },
    { name: "a one-time product", ...refusal(() => products.oneTime!, "Product is not recurring.") },
    {
      name: "a product in another currency",
      ...refusal(() => products.euro!, "This product doesn't have a price for the subscription currency."),
    },
    { name: "a product with a custom price", ...refusal(() => products.custom!, "Can't update to a product with custom prices.") },
  ];
  for (const testCase of cases) {
    it(`refuses ${testCase.name}`, async () => {
      const response = await testCase.request();
      expect(response.statusCode, response.body).toBe(testCase.status);
      expectReferenceResponse("subscriptions:update", 422, response.json());
      testCase.check(response.json());
      expect({ row: await row(id), entries: await entries(id), orders: (await orders(id)).length }).toEqual(snapshot);
    });
  }

  it("refuses a change of a subscription that will end (403) and of an unknown one (404)", async () => {
    const other = await subscribe((await plan(1000)).product.id);
    await patched(other.id, { cancel_at_period_end: true });
    const response = await patch(other.id, { product_id: products.euro! });
    expect(response.statusCode).toBe(403);
    expect(response.json().error).toBe("AlreadyCanceledSubscription");
    expect((await patch(randomUUID(), { product_id: products.euro! })).statusCode).toBe(404);
  });
});

describe("seat changes", () => {
  it("prorates more seats by the price difference over what is left, and fewer seats as a credit", async () => {
    const seats = await seatPlan();
    const { id } = await subscribe(seats.product.id, { checkout: { seats: 2 } });
    expect((await row(id)).amount).toBe(1000);
    ctx.clock.set(new Date(APRIL_1.getTime() + 15 * DAY));
    const body = await patched(id, { seats: 5 });
    expect(body).toMatchObject({ seats: 5, amount: 2500 });
    // A third of what is left later: 5 → 12 seats moves to the 400 tier.
    ctx.clock.set(new Date(APRIL_1.getTime() + 20 * DAY));
    await patched(id, { seats: 12 });
    ctx.clock.set(new Date(APRIL_1.getTime() + 25 * DAY));
    await patched(id, { seats: 3 });
    const name = seats.product.name;
    expect(await entries(id)).toEqual([
      { label: `Remaining time on ${name} (5 seats)`, amount: share(2500 - 1000, 15, 30), order_id: null },
      { label: `Remaining time on ${name} (12 seats)`, amount: share(4800 - 2500, 10, 30), order_id: null },
      { label: `Unused time on ${name} (3 seats)`, amount: share(1500 - 4800, 5, 30), order_id: null },
    ]);
    await renewAt(MAY_1);
    const renewal = (await orders(id))[1]!;
    expect(renewal.subtotal_amount).toBe(1500 + 750 + share(2300, 10, 30) + share(-3300, 5, 30));
  });

  const seatCases = [
    {
      name: "fewer seats than the first tier",
      payload: { seats: 1 },
      status: 400,
      error: "BelowMinimumSeats",
      detail: "Minimum 2 seats required.",
    },
    {
      name: "more seats than the last tier",
      payload: { seats: 21 },
      status: 400,
      error: "AboveMaximumSeats",
      detail: "Maximum 20 seats allowed.",
    },
    { name: "`reset` without the organization flag", payload: { seats: 4, proration_behavior: "reset" }, status: 422 },
  ];
  for (const testCase of seatCases) {
    it(`refuses ${testCase.name}, writing nothing`, async () => {
      const { id } = await subscribe((await seatPlan()).product.id, { checkout: { seats: 3 } });
      const before = await row(id);
      const response = await patch(id, testCase.payload);
      expect(response.statusCode, response.body).toBe(testCase.status);
      if (testCase.error) expect(response.json()).toEqual({ error: testCase.error, detail: testCase.detail });
      expect(await row(id)).toEqual(before);
      expect(await entries(id)).toEqual([]);
    });
  }

  it("refuses seats on a subscription without a seat price, and treats the same count as no change", async () => {
    const fixed = await subscribe((await plan(1000)).product.id);
    const response = await patch(fixed.id, { seats: 3 });
    expect(response.statusCode).toBe(400);
    expect(response.json().error).toBe("NotASeatBasedSubscription");

    const { id } = await subscribe((await seatPlan()).product.id, { checkout: { seats: 3 } });
    await patched(id, { seats: 6, proration_behavior: "next_period" });
    expect((await row(id)).pending_update).toMatchObject({ seats: 6, product_id: null });
    // The current count again: the scheduled change is dropped, nothing billed.
    const same = await patched(id, { seats: 3 });
    expect(same).toMatchObject({ seats: 3, pending_update: null });
    expect(await entries(id)).toEqual([]);
  });

  it("serialises parallel seat changes: each one prorates from the count the previous one left", async () => {
    const { id } = await subscribe((await seatPlan()).product.id, { checkout: { seats: 2 } });
    ctx.clock.set(new Date(APRIL_1.getTime() + 15 * DAY));
    const counts = [4, 6, 8, 3, 5];
    const responses = await Promise.all(counts.map((seats) => patch(id, { seats })));
    expect(responses.map((response) => response.statusCode)).toEqual(counts.map(() => 200));
    const final = await row(id);
    const price = await ctx.deps.db
      .selectFrom("subscription_prices")
      .select("amount")
      .where("subscription_id", "=", id)
      .executeTakeFirstOrThrow();
    expect(price.amount).toBe((final.seats ?? 0) * 500);
    // Five changes, each from the count before it: their debits and credits add up (to within one
    // unit a change, the rounding) to half the final amount less half the first.
    const recorded = await entries(id);
    expect(recorded).toHaveLength(5);
    const total = recorded.reduce((sum, entry) => sum + entry.amount, 0);
    expect(Math.abs(total - ((final.seats ?? 0) * 500 - 1000) / 2)).toBeLessThanOrEqual(5);
  });
});

describe("portal changes", () => {
  it("lets a customer switch to a public product at the organization's default proration, and not to a private one", async () => {
    const [cheap, dear] = [await plan(1000), await plan(3000)];
    const hidden = await plan(3000, { visibility: "private" });
    const { id, customerId } = await subscribe(cheap.product.id);
    ctx.clock.set(new Date(APRIL_1.getTime() + 15 * DAY));
    // A session lasts an hour: opened at the time of the change.
    const token = await createCustomerSessionToken(ctx.deps, customerId);
    const portalPatch = (payload: Record<string, unknown>) =>
      ctx.request({ method: "PATCH", url: `/v1/customer-portal/subscriptions/${id}`, token, payload });
    const refused = await portalPatch({ product_id: hidden.product.id });
    expect(refused.statusCode).toBe(422);
    expect(refused.json().detail[0]).toMatchObject({ loc: ["body", "product_id"], msg: "Product visibility is not allowed." });
    const moved = await portalPatch({ product_id: dear.product.id });
    expect(moved.statusCode, moved.body).toBe(200);
    expectReferenceResponse("customer_portal:subscriptions:update", 200, moved.json());
    expect(moved.json().product_id).toBe(dear.product.id);
    expect((await entries(id)).map((entry) => entry.amount)).toEqual([-500, 1500]);
  });
});
