import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { badInputTable, getRequest, tokenRefusals } from "../../helpers/bad-inputs.ts";
import { createTestContext, type TestContext } from "../../helpers/context.ts";
import {
  createCustomer,
  createDiscount,
  createForeignToken,
  createOrder,
  createOrganization,
  createOrganizationToken,
  createProduct,
  createSubscription,
} from "../../helpers/factories.ts";
import { expectReferenceResponse } from "../../helpers/reference.ts";
import { openCheckoutThroughApi } from "../checkouts/checkout-helpers.ts";
import { BUYER } from "../subscriptions/subscription-helpers.ts";
import { metricSources } from "../../../src/modules/metrics/metrics.repository.ts";
import { rebuildOrderRollups, wholeHourZone } from "../../../src/modules/metrics/metric-rollups.repository.ts";
import type { TimeInterval } from "../../../src/schema/time-intervals.ts";

let ctx: TestContext;
let token: string;
let organizationId: string;
let ordersToken: string;
let yearlyId: string;
let customerA: string;
let foreign: { organizationId: string; productId: string };
let foreignToken: string;

const at = (iso: string) => ctx.clock.set(new Date(iso));

/** Buys as a storefront would: the seller opens the session, the buyer views it (its first view is recorded), then pays. */
async function buy(productId: string, email: string, checkout: Record<string, unknown> = {}) {
  const session = await openCheckoutThroughApi(ctx, token, { products: [productId], ...checkout });
  expect((await ctx.request({ method: "GET", url: `/v1/checkouts/client/${session.client_secret}` })).statusCode).toBe(200);
  const confirmed = await ctx.request({
    method: "POST",
    url: `/v1/checkouts/client/${session.client_secret}/confirm`,
    payload: { ...BUYER, customer_email: email, confirmation_token_id: "tok_visa" },
  });
  expect(confirmed.statusCode, confirmed.body).toBe(200);
  const read = await ctx.request({ method: "GET", url: `/v1/checkouts/${session.id}`, token: ctx.ownerToken });
  return read.json<{ id: string; subscription_id: string | null; customer_id: string; order_id?: string }>();
}

const advanceTo = async (iso: string) => {
  const response = await ctx.request({ method: "POST", url: "/v1/test-clock/advance", token, payload: { to: iso } });
  expect(response.statusCode, response.body).toBe(200);
};

const orderOf = async (checkoutId: string) =>
  ctx.deps.db.selectFrom("orders").selectAll().where("checkout_id", "=", checkoutId).executeTakeFirstOrThrow();

const metrics = (query: string, as = token) => ctx.request({ method: "GET", url: `/v1/metrics/?${query}`, token: as });

beforeAll(async () => {
  ctx = await createTestContext();
  const organization = await createOrganization(ctx.deps);
  organizationId = organization.id;
  token = await createOrganizationToken(ctx.deps, organizationId, [
    "checkouts:write",
    "subscriptions:write",
    "orders:read",
    "refunds:write",
    "metrics:read",
    "events:write",
  ]);
  // This deployment recorded checkout views from before the history below.
  await sql`UPDATE kysely_migration SET timestamp = '2025-12-01T00:00:00.000Z' WHERE name = '2026-11-29T0505_checkout_opened_at'`.execute(
    ctx.deps.db,
  );
  const monthly = await createProduct(ctx.deps, organizationId, {
    product: { name: "Monthly", recurring_interval: "month", recurring_interval_count: 1 },
    prices: [{ amount_type: "fixed", price_amount: 1500 }],
  });
  ordersToken = await createOrganizationToken(ctx.deps, organizationId, ["orders:read"]);
  const yearly = await createProduct(ctx.deps, organizationId, {
    product: { name: "Yearly", recurring_interval: "year", recurring_interval_count: 1 },
    prices: [{ amount_type: "fixed", price_amount: 12_000 }],
  });
  const trial = await createProduct(ctx.deps, organizationId, {
    product: { name: "Trial", recurring_interval: "month", recurring_interval_count: 1, trial_interval: "day", trial_interval_count: 14 },
    prices: [{ amount_type: "fixed", price_amount: 3000 }],
  });
  const ebook = await createProduct(ctx.deps, organizationId, {
    product: { name: "Ebook" },
    prices: [{ amount_type: "fixed", price_amount: 2500 }],
  });
  const discount = await createDiscount(ctx.deps, organizationId, { code: "TENOFF", basis_points: 1000, duration: "once" });

  // 03:30 UTC is 22:30 the day before in New York: the day boundary the time-zone cases read.
  at("2026-01-05T03:30:00Z");
  const a = await buy(monthly.product.id, "a@example.com");
  customerA = a.customer_id;
  yearlyId = yearly.product.id;
  const b = await buy(yearly.product.id, "b@example.com");
  await buy(trial.product.id, "c@example.com");
  const book = await buy(ebook.product.id, "d@example.com", { discount_id: discount.id });
  // Opened, never paid; and one made by the API and never shown: not counted.
  const opened = await openCheckoutThroughApi(ctx, token, { products: [ebook.product.id] });
  expect((await ctx.request({ method: "GET", url: `/v1/checkouts/client/${opened.client_secret}` })).statusCode).toBe(200);
  await openCheckoutThroughApi(ctx, token, { products: [ebook.product.id] });

  await advanceTo("2026-01-20T12:00:00Z");
  const refund = (orderId: string, amount: number) =>
    ctx.request({ method: "POST", url: "/v1/refunds/", token, payload: { order_id: orderId, reason: "customer_request", amount } });
  expect((await refund((await orderOf(book.id)).id, 2250)).statusCode).toBe(201);
  expect((await refund((await orderOf(b.id)).id, 2000)).statusCode).toBe(201);

  await advanceTo("2026-02-10T09:00:00Z");
  const cancel = await ctx.request({
    method: "PATCH",
    url: `/v1/subscriptions/${a.subscription_id}`,
    token,
    payload: { cancel_at_period_end: true, customer_cancellation_reason: "too_expensive" },
  });
  expect(cancel.statusCode, cancel.body).toBe(200);

  await advanceTo("2026-03-10T12:00:00Z");
  const ingest = await ctx.request({
    method: "POST",
    url: "/v1/events/ingest",
    token,
    payload: {
      events: [
        {
          name: "llm",
          customer_id: a.customer_id,
          timestamp: "2026-01-10T12:00:00Z",
          metadata: { _cost: { amount: "150.25", currency: "usd" } },
        },
        {
          name: "llm",
          external_customer_id: "ext-1",
          timestamp: "2026-02-03T12:00:00Z",
          metadata: { _cost: { amount: "49.75", currency: "usd" } },
        },
        { name: "page", external_customer_id: "ext-1", timestamp: "2026-02-03T13:00:00Z" },
      ],
    },
  });
  expect(ingest.statusCode, ingest.body).toBe(200);

  const other = await createOrganization(ctx.deps);
  foreignToken = await createForeignToken(ctx.deps, ["orders:read"]);
  foreign = { organizationId: other.id, productId: (await createProduct(ctx.deps, other.id)).product.id };
});
afterAll(() => ctx.close());

type Series = Record<string, [periods: number[], total: number]>;

/** Asserts the timestamps and, for each slug, every period's value and the total; and the answer's reference shape. */
async function expectSeries(query: string, timestamps: string[], expected: Series) {
  const response = await metrics(query);
  expect(response.statusCode, response.body).toBe(200);
  const json = response.json<{ periods: Record<string, number | string>[]; totals: Record<string, number> }>();
  expectReferenceResponse("metrics:get", 200, json);
  expect(json.periods.map((period) => period.timestamp)).toEqual(timestamps);
  const actual = Object.fromEntries(
    Object.keys(expected).map((slug) => [slug, [json.periods.map((period) => period[slug]), json.totals[slug]]]),
  );
  expect(actual).toEqual(expected);
  return json;
}

const SEATS = ["seats_total", "seats_claimed", "seats_pending", "seat_customers", "new_seat_customers", "churned_seat_customers"];
const REASONS = ["customer_service", "low_quality", "missing_features", "switched_service", "too_complex", "unused", "other"];
const zeros = (slugs: string[], periods: number): Series =>
  Object.fromEntries(slugs.map((slug) => [slug, [Array<number>(periods).fill(0), 0]]));

describe("GET /v1/metrics/: the known history", () => {
  it("computes every metric by month in UTC", async () => {
    const json = await expectSeries(
      "start_date=2026-01-01&end_date=2026-03-31&interval=month",
      ["2026-01-01T00:00:00+00:00", "2026-02-01T00:00:00+00:00", "2026-03-01T00:00:00+00:00"],
      {
        // A (1500/month, cancelled 10 Feb, ended 5 Mar), B (12000/year), C (3000/month after a trial to 19 Jan).
        active_subscriptions: [[3, 3, 2], 2],
        committed_subscriptions: [[2, 2, 2], 2],
        monthly_recurring_revenue: [[5500, 5500, 4000], 4000],
        trial_monthly_recurring_revenue: [[0, 0, 0], 0],
        committed_monthly_recurring_revenue: [[4000, 4000, 4000], 4000],
        trial_committed_monthly_recurring_revenue: [[0, 0, 0], 0],
        average_revenue_per_user: [[1833, 1833, 2000], 2000],
        // Five viewed sessions (four paid, one left), the never-shown one not counted.
        checkouts: [[5, 0, 0], 5],
        succeeded_checkouts: [[4, 0, 0], 4],
        churned_subscriptions: [[0, 0, 1], 1],
        churn_rate: [[0, 0, 1 / 3], 1 / 3],
        ...zeros(SEATS, 3),
        // January: A 1500, B 12000 (2000 refunded), C's trial 0 and first charge 3000, the ebook 2250 after 10% off (refunded).
        orders: [[5, 2, 0], 7],
        revenue: [[18750, 4500, 0], 23250],
        net_revenue: [[14500, 4500, 0], 19000],
        cumulative_revenue: [[18750, 23250, 23250], 23250],
        net_cumulative_revenue: [[14500, 19000, 19000], 19000],
        costs: [[150.25, 49.75, 0], 200],
        cumulative_costs: [[150.25, 200, 200], 200],
        average_order_value: [[3750, 2250, 0], 23250 / 7],
        net_average_order_value: [[2900, 2250, 0], 19000 / 7],
        cost_per_user: [[150.25, 49.75, 0], 100],
        active_user_by_event: [[1, 1, 0], 2],
        one_time_products: [[1, 0, 0], 1],
        one_time_products_revenue: [[2250, 0, 0], 2250],
        one_time_products_net_revenue: [[0, 0, 0], 0],
        new_subscriptions: [[3, 0, 0], 3],
        new_subscriptions_revenue: [[16500, 0, 0], 16500],
        new_subscriptions_net_revenue: [[14500, 0, 0], 14500],
        renewed_subscriptions: [[0, 2, 0], 2],
        renewed_subscriptions_revenue: [[0, 4500, 0], 4500],
        renewed_subscriptions_net_revenue: [[0, 4500, 0], 4500],
        canceled_subscriptions: [[0, 1, 0], 1],
        canceled_subscriptions_too_expensive: [[0, 1, 0], 1],
        ...zeros(
          REASONS.map((reason) => `canceled_subscriptions_${reason}`),
          3,
        ),
        annual_recurring_revenue: [[66000, 66000, 48000], 48000],
        committed_annual_recurring_revenue: [[48000, 48000, 48000], 48000],
        checkouts_conversion: [[0.8, 0, 0], 0.8],
        ltv: [[0, 0, 6000], 6000],
        gross_margin: [[18599.75, 23050, 23050], 23050],
        gross_margin_percentage: [[18599.75 / 18750, 23050 / 23250, 23050 / 23250], 23050 / 23250],
        cashflow: [[18599.75, 4450.25, 0], 23050],
        average_seats_per_customer: [[0, 0, 0], 0],
        seat_utilization_rate: [[0, 0, 0], 0],
      },
    );
    expect(Object.keys(json.totals)).toHaveLength(55);
    expect(Object.keys(json.periods[0]!)).toHaveLength(56);
  });

  it("snaps a mid-month start back to the 1st, counting flows from the start and the lifetime before it", async () => {
    await expectSeries(
      "start_date=2026-01-10&end_date=2026-03-31&interval=month&metrics=orders&metrics=revenue&metrics=cumulative_revenue&metrics=checkouts&metrics=new_subscriptions&metrics=active_subscriptions&metrics=costs",
      ["2026-01-01T00:00:00+00:00", "2026-02-01T00:00:00+00:00", "2026-03-01T00:00:00+00:00"],
      {
        orders: [[1, 2, 0], 3],
        revenue: [[3000, 4500, 0], 7500],
        cumulative_revenue: [[18750, 23250, 23250], 23250],
        checkouts: [[0, 0, 0], 0],
        new_subscriptions: [[0, 0, 0], 0],
        active_subscriptions: [[3, 3, 2], 2],
        costs: [[150.25, 49.75, 0], 200],
      },
    );
  });

  it("buckets by the requested zone's days: 03:30 UTC on 5 January is 4 January in New York", async () => {
    const newYork: Series = {
      active_subscriptions: [[3, 3], 3],
      committed_subscriptions: [[2, 2], 2],
      // C is still in its trial at the end of both days.
      monthly_recurring_revenue: [[2500, 2500], 2500],
      trial_monthly_recurring_revenue: [[3000, 3000], 3000],
      committed_monthly_recurring_revenue: [[1000, 1000], 1000],
      trial_committed_monthly_recurring_revenue: [[3000, 3000], 3000],
      average_revenue_per_user: [[833, 833], 833],
      checkouts: [[5, 0], 5],
      succeeded_checkouts: [[4, 0], 4],
      churned_subscriptions: [[0, 0], 0],
      churn_rate: [[0, 0], 0],
      ...zeros(SEATS, 2),
      orders: [[4, 0], 4],
      revenue: [[15750, 0], 15750],
      net_revenue: [[11500, 0], 11500],
      cumulative_revenue: [[15750, 15750], 15750],
      net_cumulative_revenue: [[11500, 11500], 11500],
      costs: [[0, 0], 0],
      cumulative_costs: [[0, 0], 0],
      average_order_value: [[3938, 0], 3937.5],
      net_average_order_value: [[2875, 0], 2875],
      cost_per_user: [[0, 0], 0],
      active_user_by_event: [[0, 0], 3],
      one_time_products: [[1, 0], 1],
      one_time_products_revenue: [[2250, 0], 2250],
      one_time_products_net_revenue: [[0, 0], 0],
      new_subscriptions: [[3, 0], 3],
      new_subscriptions_revenue: [[13500, 0], 13500],
      new_subscriptions_net_revenue: [[11500, 0], 11500],
      renewed_subscriptions: [[0, 0], 0],
      renewed_subscriptions_revenue: [[0, 0], 0],
      renewed_subscriptions_net_revenue: [[0, 0], 0],
      canceled_subscriptions: [[0, 0], 0],
      ...zeros(
        [...REASONS, "too_expensive"].map((reason) => `canceled_subscriptions_${reason}`),
        2,
      ),
      annual_recurring_revenue: [[30000, 30000], 30000],
      committed_annual_recurring_revenue: [[12000, 12000], 12000],
      checkouts_conversion: [[0.8, 0], 0.8],
      ltv: [[0, 0], 0],
      gross_margin: [[15750, 15750], 15750],
      gross_margin_percentage: [[1, 1], 1],
      cashflow: [[15750, 0], 15750],
      average_seats_per_customer: [[0, 0], 0],
      seat_utilization_rate: [[0, 0], 0],
    };
    await expectSeries(
      "start_date=2026-01-04&end_date=2026-01-05&interval=day&timezone=America/New_York",
      ["2026-01-04T00:00:00-05:00", "2026-01-05T00:00:00-05:00"],
      newYork,
    );
    await expectSeries(
      "start_date=2026-01-04&end_date=2026-01-05&interval=day&metrics=orders&metrics=active_subscriptions&metrics=checkouts",
      ["2026-01-04T00:00:00+00:00", "2026-01-05T00:00:00+00:00"],
      { orders: [[0, 4], 4], active_subscriptions: [[0, 3], 3], checkouts: [[0, 5], 5] },
    );
  });

  it("steps local days across the change to daylight time (8 March in New York)", async () => {
    await expectSeries(
      "start_date=2026-03-03&end_date=2026-03-09&interval=day&timezone=America/New_York&metrics=active_subscriptions&metrics=churned_subscriptions&metrics=churn_rate&metrics=monthly_recurring_revenue&metrics=net_cumulative_revenue",
      [
        "2026-03-03T00:00:00-05:00",
        "2026-03-04T00:00:00-05:00",
        "2026-03-05T00:00:00-05:00",
        "2026-03-06T00:00:00-05:00",
        "2026-03-07T00:00:00-05:00",
        "2026-03-08T00:00:00-05:00",
        "2026-03-09T00:00:00-04:00",
      ],
      {
        // A ended at 22:30 on 4 March, New York time.
        active_subscriptions: [[3, 2, 2, 2, 2, 2, 2], 2],
        churned_subscriptions: [[0, 1, 0, 0, 0, 0, 0], 1],
        monthly_recurring_revenue: [[5500, 4000, 4000, 4000, 4000, 4000, 4000], 4000],
        // A's cancellation on 10 February over the three alive 30 days before each day.
        churn_rate: [[1 / 3, 1 / 3, 1 / 3, 1 / 3, 1 / 3, 1 / 3, 1 / 3], 1 / 3],
        net_cumulative_revenue: [[19000, 19000, 19000, 19000, 19000, 19000, 19000], 19000],
      },
    );
  });

  it("snaps weeks back to Monday and judges a trial against each week", async () => {
    await expectSeries(
      "start_date=2026-01-07&end_date=2026-01-20&interval=week&metrics=orders&metrics=cumulative_revenue&metrics=monthly_recurring_revenue&metrics=trial_monthly_recurring_revenue&metrics=renewed_subscriptions&metrics=new_subscriptions_revenue",
      ["2026-01-05T00:00:00+00:00", "2026-01-12T00:00:00+00:00", "2026-01-19T00:00:00+00:00"],
      {
        // Only C's first charge (19 January) is inside the range; the 5 January sales are its baseline.
        orders: [[0, 0, 1], 1],
        cumulative_revenue: [[15750, 15750, 18750], 18750],
        // C's trial ends at 03:30 on 19 January: still trialing at the end of the second week.
        monthly_recurring_revenue: [[2500, 2500, 5500], 5500],
        trial_monthly_recurring_revenue: [[3000, 3000, 0], 0],
        renewed_subscriptions: [[0, 0, 1], 1],
        new_subscriptions_revenue: [[0, 0, 0], 0],
      },
    );
  });

  it("reads a year as one period, its churn window a year ahead", async () => {
    await expectSeries(
      "start_date=2026-01-01&end_date=2026-12-31&interval=year&metrics=orders&metrics=active_subscriptions&metrics=churned_subscriptions&metrics=churn_rate&metrics=new_subscriptions_revenue&metrics=renewed_subscriptions",
      ["2026-01-01T00:00:00+00:00"],
      {
        orders: [[7], 7],
        active_subscriptions: [[2], 2],
        churned_subscriptions: [[1], 1],
        // Nobody was subscribed on 1 January 2026, the window's start.
        churn_rate: [[0], 0],
        new_subscriptions_revenue: [[21000], 21000],
        renewed_subscriptions: [[0], 0],
      },
    );
  });

  it("counts hours, and the 23 hours of the day daylight time starts", async () => {
    const utc = await metrics("start_date=2026-01-05&end_date=2026-01-05&interval=hour&metrics=orders");
    const hours = utc.json<{ periods: { timestamp: string; orders: number }[] }>().periods;
    expect(hours).toHaveLength(24);
    expect(hours.filter((hour) => hour.orders > 0)).toEqual([{ timestamp: "2026-01-05T03:00:00+00:00", orders: 4 }]);
    const newYork = await metrics("start_date=2026-03-08&end_date=2026-03-08&interval=hour&timezone=America/New_York&metrics=orders");
    const stamps = newYork.json<{ periods: { timestamp: string }[] }>().periods.map((period) => period.timestamp);
    expect(stamps).toHaveLength(23);
    expect(stamps.slice(0, 3)).toEqual(["2026-03-08T00:00:00-05:00", "2026-03-08T01:00:00-05:00", "2026-03-08T03:00:00-04:00"]);
  });

  it("answers the owner's personal token for the organization it names", async () => {
    const response = await metrics(
      `start_date=2026-01-01&end_date=2026-03-31&interval=month&metrics=revenue&organization_id=${organizationId}`,
      ctx.ownerToken,
    );
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toMatchObject({ totals: { revenue: 23250 } });
  });

  it("answers only the requested metrics, in periods, totals and descriptions", async () => {
    const response = await metrics("start_date=2026-01-01&end_date=2026-03-31&interval=month&metrics=revenue&metrics=gross_margin");
    expect(response.statusCode, response.body).toBe(200);
    const json = response.json<{ periods: object[]; totals: object; metrics: object }>();
    expectReferenceResponse("metrics:get", 200, json);
    expect(json.periods[0]).toEqual({ timestamp: "2026-01-01T00:00:00+00:00", revenue: 18750, gross_margin: 18599.75 });
    expect(json.totals).toEqual({ revenue: 23250, gross_margin: 23050 });
    expect(json.metrics).toEqual({
      revenue: { slug: "revenue", display_name: "Revenue", type: "currency" },
      gross_margin: { slug: "gross_margin", display_name: "Gross Margin", type: "currency" },
    });
  });

  it("keeps the hosted service's cost totals: per-user costs read 0 unless active subscriptions are computed too", async () => {
    const alone = await metrics(
      "start_date=2026-01-01&end_date=2026-03-31&interval=month&metrics=cost_per_user&metrics=active_user_by_event",
    );
    expect(alone.json()).toMatchObject({ totals: { cost_per_user: 0, active_user_by_event: 0 } });
    const both = await metrics(
      "start_date=2026-01-01&end_date=2026-03-31&interval=month&metrics=cost_per_user&metrics=active_user_by_event&metrics=active_subscriptions",
    );
    expect(both.json()).toMatchObject({ totals: { cost_per_user: 100, active_user_by_event: 2 } });
  });

  it("filters by product, billing type and customer", async () => {
    const month = "start_date=2026-01-01&end_date=2026-03-31&interval=month";
    const base = ["2026-01-01T00:00:00+00:00", "2026-02-01T00:00:00+00:00", "2026-03-01T00:00:00+00:00"];
    await expectSeries(
      `${month}&product_id=${yearlyId}&metrics=revenue&metrics=net_revenue&metrics=active_subscriptions&metrics=monthly_recurring_revenue&metrics=checkouts`,
      base,
      {
        revenue: [[12000, 0, 0], 12000],
        net_revenue: [[10000, 0, 0], 10000],
        active_subscriptions: [[1, 1, 1], 1],
        monthly_recurring_revenue: [[1000, 1000, 1000], 1000],
        checkouts: [[1, 0, 0], 1],
      },
    );
    await expectSeries(`${month}&billing_type=one_time&metrics=orders&metrics=active_subscriptions`, base, {
      orders: [[1, 0, 0], 1],
      active_subscriptions: [[0, 0, 0], 0],
    });
    await expectSeries(`${month}&customer_id=${customerA}&metrics=orders&metrics=active_subscriptions&metrics=costs`, base, {
      orders: [[1, 1, 0], 2],
      active_subscriptions: [[1, 1, 0], 0],
      costs: [[150.25, 0, 0], 150.25],
    });
  });

  it("reads another organization's product or organization as a filter that matches nothing", async () => {
    for (const filter of [`product_id=${foreign.productId}`, `organization_id=${foreign.organizationId}`]) {
      const response = await metrics(
        `start_date=2026-01-01&end_date=2026-03-31&interval=month&metrics=orders&metrics=active_subscriptions&${filter}`,
      );
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json()).toMatchObject({ totals: { orders: 0, active_subscriptions: 0 } });
    }
  });
});

describe("GET /v1/metrics/: one currency", () => {
  it("sums money in the organization's default currency, or the one asked, and counts every order", async () => {
    const organization = await createOrganization(ctx.deps);
    const own = await createOrganizationToken(ctx.deps, organization.id, ["metrics:read"]);
    await createOrder(ctx.deps, organization.id, {
      product: null,
      amounts: { subtotal: 500 },
      values: { created_at: new Date("2026-01-15T12:00:00Z") },
    });
    await createOrder(ctx.deps, organization.id, {
      product: null,
      amounts: { subtotal: 1000 },
      values: { created_at: new Date("2026-01-16T12:00:00Z"), currency: "eur" },
    });
    const query = "start_date=2026-01-01&end_date=2026-01-31&interval=day&metrics=orders&metrics=revenue&metrics=average_order_value";
    const usd = await metrics(query, own);
    expect(usd.json()).toMatchObject({ totals: { orders: 2, revenue: 500, average_order_value: 500 } });
    const eur = await metrics(`${query}&currency=eur`, own);
    expect(eur.json()).toMatchObject({ totals: { orders: 2, revenue: 1000, average_order_value: 1000 } });
  });
});

describe("GET /v1/metrics/export", () => {
  it("writes a CSV of the periods, Excel's dialect, the metrics' names in canonical order, no totals", async () => {
    const response = await ctx.request({
      method: "GET",
      url: "/v1/metrics/export?start_date=2026-01-01&end_date=2026-03-31&interval=month&metrics=revenue&metrics=orders&metrics=churn_rate",
      token,
    });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.headers["content-type"]).toBe("text/csv; charset=utf-8");
    expect(response.headers["content-disposition"]).toBe('attachment; filename="polar-metrics.csv"');
    expect(response.body).toBe(
      [
        "Timestamp,Churn Rate,Orders,Revenue",
        "2026-01-01T00:00:00+00:00,0,5,18750",
        "2026-02-01T00:00:00+00:00,0,2,4500",
        `2026-03-01T00:00:00+00:00,${1 / 3},0,0`,
        "",
      ].join("\r\n"),
    );
  });
});

describe("GET /v1/metrics/ and /export: refusals", () => {
  const valid = "start_date=2026-01-01&end_date=2026-01-31&interval=day";
  for (const path of ["/v1/metrics/", "/v1/metrics/export"]) {
    describe(path, () => {
      const get = getRequest(path, () => token);
      it("names every unknown slug, sorted, at [query, metrics]", async () => {
        const response = await ctx.request(get(`?${valid}&metrics=zeta&metrics=revenue&metrics=alpha`)());
        expect(response.statusCode).toBe(422);
        expect(response.json()).toEqual({
          error: "RequestValidationError",
          detail: [
            {
              loc: ["query", "metrics"],
              msg: "Invalid metric slugs: alpha, zeta",
              type: "value_error",
              input: ["zeta", "revenue", "alpha"],
            },
          ],
        });
      });
      it("refuses a range the interval cannot hold, and an unknown zone, at once", async () => {
        const response = await ctx.request(get("?start_date=2026-01-01&end_date=2027-01-03&interval=day&timezone=Mars/Olympus")());
        expect(response.statusCode).toBe(422);
        expect(response.json<{ detail: { loc: string[]; msg: string }[] }>().detail.map(({ loc, msg }) => ({ loc, msg }))).toEqual([
          { loc: ["query"], msg: "The interval is too small for the given date range. Use a larger interval or reduce the date range." },
          { loc: ["query", "timezone"], msg: "Invalid timezone name." },
        ]);
      });
      badInputTable(
        () => ctx.request,
        [
          {
            name: "an end before the start",
            request: get("?start_date=2026-02-01&end_date=2026-01-31&interval=day"),
            status: 422,
            loc: ["query"],
          },
          { name: "367 days by day", request: get("?start_date=2026-01-01&end_date=2027-01-03&interval=day"), status: 422, loc: ["query"] },
          { name: "an unknown metric", request: get(`?${valid}&metrics=mrr`), status: 422, loc: ["query", "metrics"] },
          { name: "an unknown time zone", request: get(`?${valid}&timezone=Europe/Atlantis`), status: 422, loc: ["query", "timezone"] },
          { name: "a missing start", request: get("?end_date=2026-01-31&interval=day"), status: 422, loc: ["query", "start_date"] },
          {
            name: "an impossible date",
            request: get("?start_date=2026-02-30&end_date=2026-03-31&interval=day"),
            status: 422,
            loc: ["query", "start_date"],
          },
          {
            name: "an unknown interval",
            request: get("?start_date=2026-01-01&end_date=2026-01-31&interval=fortnight"),
            status: 422,
            loc: ["query", "interval"],
          },
          { name: "a non-UUID product", request: get(`?${valid}&product_id=nope`), status: 422, loc: ["query", "product_id"] },
          { name: "an unknown billing type", request: get(`?${valid}&billing_type=weekly`), status: 422, loc: ["query", "billing_type"] },
          { name: "an unknown currency", request: get(`?${valid}&currency=xyz`), status: 422, loc: ["query", "currency"] },
          ...tokenRefusals((as) => get(`?${valid}`, as), {
            "a token of orders": () => ordersToken,
            "another organization's token without metrics:read": () => foreignToken,
          }),
        ],
      );
    });
  }
});

describe("order rollups", () => {
  // Every range, interval and zone the known history is read with above, and the product filters.
  const READS: [start: string, end: string, interval: TimeInterval, timezone: string][] = [
    ["2026-01-01", "2026-03-31", "month", "UTC"],
    ["2026-01-10", "2026-03-31", "month", "UTC"],
    ["2026-01-04", "2026-01-05", "day", "America/New_York"],
    ["2026-01-04", "2026-01-05", "day", "UTC"],
    ["2026-03-03", "2026-03-09", "day", "America/New_York"],
    ["2026-01-07", "2026-01-20", "week", "UTC"],
    ["2026-01-01", "2026-12-31", "year", "UTC"],
    ["2026-01-05", "2026-01-05", "hour", "UTC"],
    ["2026-03-08", "2026-03-08", "hour", "America/New_York"],
    ["2026-01-01", "2026-03-31", "week", "Europe/Paris"],
    ["2026-01-01", "2026-01-31", "day", "Pacific/Kiritimati"],
    // Day rollups: a start after the history (all before it), the two DST changes of a year by day
    // (read from hours), and the westernmost zone.
    ["2026-01-06", "2026-01-31", "day", "Europe/Berlin"],
    ["2026-01-01", "2026-12-31", "day", "Europe/Berlin"],
    ["2026-01-01", "2026-03-31", "day", "America/New_York"],
    ["2026-01-01", "2026-01-31", "day", "Etc/GMT+12"],
    // Weeks, months and years from the day rows where both midnights share an offset.
    ["2026-01-01", "2026-12-31", "week", "Europe/Berlin"],
    ["2026-01-03", "2026-11-20", "month", "America/New_York"],
    ["2026-01-01", "2026-12-31", "year", "Pacific/Auckland"],
  ];
  const sources = (
    ordersFromRollups: boolean,
    [startDate, endDate, interval, timezone]: (typeof READS)[number],
    productIds: string[] | null,
    organization = organizationId,
  ) =>
    metricSources(ctx.deps.db, {
      startDate,
      endDate,
      interval,
      timezone,
      families: new Set(["orders"]),
      filter: { organizationIds: [organization], productIds, billingTypes: null, customerIds: null, currency: "usd" },
      ordersFromRollups,
    });
  const expectRollupsEqualOrders = async () => {
    let counted = 0;
    for (const read of READS) {
      for (const productIds of [null, [yearlyId]]) {
        const rolled = await sources(true, read, productIds);
        expect(rolled, `${read.join(" ")} ${productIds?.join(",") ?? ""}`).toEqual(await sources(false, read, productIds));
        counted += rolled.filter((period) => (period.values["orders"] ?? 0) > 0).length;
      }
    }
    // Not a comparison of empty answers.
    expect(counted).toBeGreaterThan(20);
  };
  const rollupRows = () =>
    ctx.deps.db
      .selectFrom("metric_order_rollups")
      .select(["hour", "product_id", "currency", "subscription", "start_lag", "prev_lag", "orders", "revenue", "net"])
      .where("organization_id", "=", organizationId)
      .where("orders", "<>", "0")
      .orderBy("hour")
      .orderBy("product_id")
      .orderBy("start_lag")
      .orderBy("prev_lag")
      .execute();

  const dayRollupRows = () =>
    ctx.deps.db
      .selectFrom("metric_order_day_rollups")
      .select(["utc_offset", "day", "product_id", "currency", "subscription", "start_day", "prev_day", "orders", "revenue", "net"])
      .where("organization_id", "=", organizationId)
      .where("orders", "<>", "0")
      .orderBy("utc_offset")
      .orderBy("day")
      .orderBy("product_id")
      .orderBy("start_day")
      .orderBy("prev_day")
      .execute();

  it("answers as the orders do, for every interval and zone the history is read with, as the writes kept them", async () => {
    await expectRollupsEqualOrders();
  });

  it("rebuilds from the orders to the rows the writes kept, after losing them", async () => {
    const kept = await rollupRows();
    const keptDays = await dayRollupRows();
    expect(kept.length).toBeGreaterThan(4);
    // 7 orders on 5 UTC days at 27 offsets, one row each at least.
    expect(keptDays.length).toBeGreaterThan(27 * 4);
    await sql`UPDATE metric_order_rollups SET revenue = revenue + 1 WHERE organization_id = ${organizationId}`.execute(ctx.deps.db);
    await sql`UPDATE metric_order_day_rollups SET net = net + 1 WHERE organization_id = ${organizationId}`.execute(ctx.deps.db);
    await sql`DELETE FROM metric_order_facts WHERE organization_id = ${organizationId}`.execute(ctx.deps.db);
    expect(await rebuildOrderRollups(ctx.deps.db, organizationId)).toEqual({ orders: 7, rows: kept.length, dayRows: keptDays.length });
    expect(await rollupRows()).toEqual(kept);
    expect(await dayRollupRows()).toEqual(keptDays);
    await expectRollupsEqualOrders();
  });

  it("answers days around both DST changes as the orders do: the changes from hours, their neighbours from day rows", async () => {
    const { id } = await createOrganization(ctx.deps);
    const customer = await createCustomer(ctx.deps, id);
    const plan = await createProduct(ctx.deps, id, { product: { name: "Plan", recurring_interval: "month", recurring_interval_count: 1 } });
    const book = (await createProduct(ctx.deps, id)).product;
    const order = (iso: string, subscriptionId?: string, subtotal = 1000) =>
      createOrder(ctx.deps, id, {
        customer,
        product: subscriptionId ? plan.product : book,
        ...(subscriptionId ? { subscriptionId } : {}),
        amounts: { subtotal },
        values: { created_at: new Date(iso) },
      });
    // Berlin moves to +2 at 01:00 UTC on 29 March and back to +1 at 01:00 UTC on 25 October.
    // 23:30 UTC on 28 March is 00:30 on the 29th in Berlin, 23:30 on the 28th at +0.
    const spring = await createSubscription(ctx.deps, id, { customer, product: plan, now: new Date("2026-03-28T23:30:00Z") });
    await order("2026-03-28T23:30:00Z", spring.id, 1500);
    await order("2026-03-29T00:30:00Z");
    // 22:30 UTC on 29 March is 00:30 on the 30th in Berlin (+2) but still the 29th at +1.
    await order("2026-03-29T22:30:00Z", spring.id, 1600);
    await order("2026-03-29T23:30:00Z", spring.id, 1700);
    const autumn = await createSubscription(ctx.deps, id, { customer, product: plan, now: new Date("2026-10-24T22:30:00Z") });
    await order("2026-10-24T22:30:00Z", autumn.id, 1800);
    await order("2026-10-25T00:30:00Z", autumn.id, 1900);
    await order("2026-10-25T22:30:00Z", autumn.id, 2000);
    await order("2026-10-26T00:30:00Z");
    // 22:30 UTC on 31 March is 00:30 on 1 April in Berlin (+2), still 31 March at +1; 23:30 UTC on
    // 31 October is 00:30 on 1 November (+1), still 31 October at +0.
    await order("2026-03-31T22:30:00Z", spring.id, 2100);
    await order("2026-10-31T23:30:00Z", autumn.id, 2200);
    let counted = 0;
    for (const read of [
      ["2026-03-27", "2026-03-31", "day", "Europe/Berlin"],
      ["2026-10-23", "2026-10-27", "day", "Europe/Berlin"],
      ["2026-03-30", "2026-10-31", "day", "Europe/Berlin"],
      ["2026-03-28", "2026-03-30", "day", "UTC"],
      ["2026-10-24", "2026-10-26", "day", "America/Sao_Paulo"],
      // Weeks, months and years: the periods across a change from hours, the others from day rows.
      ["2026-03-01", "2026-11-30", "week", "Europe/Berlin"],
      ["2026-03-20", "2026-11-05", "month", "Europe/Berlin"],
      ["2026-01-01", "2026-12-31", "year", "Europe/Berlin"],
      ["2026-03-01", "2026-11-30", "week", "America/New_York"],
      ["2026-03-01", "2026-11-30", "month", "America/New_York"],
      ["2026-03-01", "2026-11-30", "week", "Pacific/Auckland"],
      ["2026-02-01", "2026-11-30", "month", "Pacific/Auckland"],
      ["2025-06-01", "2027-01-31", "year", "Pacific/Auckland"],
      ["2026-03-01", "2026-11-30", "week", "UTC"],
      ["2026-03-01", "2026-11-30", "month", "UTC"],
    ] satisfies (typeof READS)[number][]) {
      const rolled = await sources(true, read, null, id);
      expect(rolled, read.join(" ")).toEqual(await sources(false, read, null, id));
      counted += rolled.filter((period) => (period.values["orders"] ?? 0) > 0).length;
    }
    expect(counted).toBeGreaterThan(10);
    // Read by hand: 29 March in Berlin is the first order, the one-time one and nothing else; the
    // 30th holds two orders of the spring subscription, renewed once; 25 October holds two renewals.
    const berlin = await sources(true, ["2026-03-29", "2026-03-30", "day", "Europe/Berlin"], null, id);
    expect(
      berlin.map((period) => [
        period.timestamp,
        period.values["orders"],
        period.values["renewed_subscriptions"],
        period.values["new_subscriptions_revenue"],
      ]),
    ).toEqual([
      ["2026-03-29T00:00:00+01:00", 2, 0, 1500],
      ["2026-03-30T00:00:00+02:00", 2, 1, 0],
    ]);
  });

  it("answers weeks and months across a DST change as the orders do: day rows at their first midnight's offset, the edge from hours", async () => {
    const { id } = await createOrganization(ctx.deps);
    const customer = await createCustomer(ctx.deps, id);
    const plan = await createProduct(ctx.deps, id, { product: { name: "Plan", recurring_interval: "month", recurring_interval_count: 1 } });
    const book = (await createProduct(ctx.deps, id)).product;
    const order = (iso: string, subscriptionId?: string) =>
      createOrder(ctx.deps, id, {
        customer,
        product: subscriptionId ? plan.product : book,
        ...(subscriptionId ? { subscriptionId } : {}),
        values: { created_at: new Date(iso) },
      });
    const subscribed = async (startIso: string) =>
      (await createSubscription(ctx.deps, id, { customer, product: plan, now: new Date(startIso) })).id;
    // Each month across a change ends half an hour either side of the local midnight ending it; at
    // the offset of the month's first midnight both halves fall on one date. A subscription starting
    // there after an order of it earlier in the month is new in the month only on the early side;
    // orders on both sides, renewals of a subscription of the month before, and a subscription that
    // starts there and renews in the next month surround the edge.
    const edges = [
      // Berlin: 1 April (+2) is 22:00 UTC on 31 March, 1 November (+1) 23:00 UTC on 31 October.
      ["2026-03-31T22:00:00Z", "2026-03-20T12:00:00Z"],
      ["2026-10-31T23:00:00Z", "2026-10-20T12:00:00Z"],
      // New York: 1 April (−4) is 04:00 UTC, 1 December (−5) 05:00 UTC.
      ["2026-04-01T04:00:00Z", "2026-03-20T12:00:00Z"],
      ["2026-12-01T05:00:00Z", "2026-11-20T12:00:00Z"],
      // Auckland: 1 May (+12) is 12:00 UTC on 30 April, 1 October (+13) 11:00 UTC on 30 September.
      ["2026-04-30T12:00:00Z", "2026-04-20T12:00:00Z"],
      ["2026-09-30T11:00:00Z", "2026-09-20T12:00:00Z"],
    ] as const;
    const renewing = await subscribed("2026-02-10T12:00:00Z");
    for (const [edge, earlier] of edges) {
      const at = (minutes: number) => new Date(Date.parse(edge) + minutes * 60_000).toISOString();
      for (const minutes of [-30, 30]) {
        await order(earlier, await subscribed(at(minutes)));
        await order(at(minutes));
        await order(at(minutes), renewing);
        await order(at(minutes + 24 * 60), await subscribed(at(minutes - 60)));
      }
    }
    let counted = 0;
    for (const read of [
      ["2026-02-01", "2026-12-31", "month", "Europe/Berlin"],
      ["2026-02-01", "2026-12-31", "month", "America/New_York"],
      ["2026-02-01", "2026-12-31", "month", "Pacific/Auckland"],
      ["2026-03-05", "2026-11-05", "month", "Europe/Berlin"],
      ["2026-03-01", "2026-12-31", "week", "Europe/Berlin"],
      ["2026-03-01", "2026-12-31", "week", "America/New_York"],
      ["2026-03-01", "2026-12-31", "week", "Pacific/Auckland"],
      ["2026-03-25", "2026-04-05", "day", "Europe/Berlin"],
      ["2026-10-20", "2026-11-05", "day", "America/New_York"],
      ["2026-01-01", "2026-12-31", "year", "Pacific/Auckland"],
    ] satisfies (typeof READS)[number][]) {
      const rolled = await sources(true, read, null, id);
      expect(rolled, read.join(" ")).toEqual(await sources(false, read, null, id));
      counted += rolled.filter((period) => (period.values["new_subscriptions_revenue"] ?? 0) > 0).length;
    }
    expect(counted).toBeGreaterThan(10);
  });

  it("reads zones whose periods begin off the hour from the orders", async () => {
    expect(await wholeHourZone(ctx.deps.db, "America/New_York", "2026-03-01", "2026-03-31")).toBe(true);
    expect(await wholeHourZone(ctx.deps.db, "Asia/Kolkata", "2026-01-01", "2026-01-31")).toBe(false);
    // Lord Howe is +10:30 in winter and +11 in summer: off the hour for part of the year.
    expect(await wholeHourZone(ctx.deps.db, "Australia/Lord_Howe", "2026-01-01", "2026-12-31")).toBe(false);
    await expectSeries(
      "start_date=2026-01-05&end_date=2026-01-05&interval=day&timezone=Asia/Kolkata&metrics=orders&metrics=revenue",
      ["2026-01-05T00:00:00+05:30"],
      {
        orders: [[4], 4],
        revenue: [[15750], 15750],
      },
    );
  });
});
