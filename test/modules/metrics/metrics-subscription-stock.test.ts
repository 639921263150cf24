import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { metricSources } from "../../../src/modules/metrics/metrics.repository.ts";
import type { TimeInterval } from "../../../src/schema/time-intervals.ts";
import { createTestContext, type TestContext } from "../../helpers/context.ts";
import { columnsBesides } from "../../helpers/table-columns.ts";
import { createOrganization, createOrganizationToken, createProduct } from "../../helpers/factories.ts";
import { buyThroughCheckout } from "../subscriptions/subscription-helpers.ts";

// The subscription stock and churn windows read as running sums of each row's starts and ends
// (docs/decisions.md, "Metrics: subscription stock as running sums") against their definition:
// every subscription tested against every period, here in the test as the oracle.

let ctx: TestContext;
let organizationId: string;
let currency: string;

beforeAll(async () => {
  ctx = await createTestContext();
  organizationId = (await createOrganization(ctx.deps)).id;
  const token = await createOrganizationToken(ctx.deps, organizationId, ["checkouts:write"]);
  ctx.clock.set(new Date("2026-02-20T12:00:00Z"));
  const product = await createProduct(ctx.deps, organizationId, {
    product: { name: "Monthly", recurring_interval: "month", recurring_interval_count: 1 },
    prices: [{ amount_type: "fixed", price_amount: 1000, tax_behavior: "exclusive" }],
  });
  // Three customers, each with one subscription bought through a checkout: the copies' templates.
  const bought = [];
  for (const email of ["a@example.com", "b@example.com", "c@example.com"]) {
    bought.push((await buyThroughCheckout(ctx, token, product.product.id, { buyer: { customer_email: email } })).checkout);
  }
  const kept = await columnsBesides(ctx.deps.db, "subscriptions", [
    "id",
    "customer_id",
    "created_at",
    "started_at",
    "trial_end",
    "ends_at",
    "ended_at",
    "canceled_at",
    "currency",
    "amount",
  ]);
  // 240 copies spread over 20 February to 10 April 2026 at odd minutes (both DST changes of New
  // York and Berlin inside), with the edges the running sums must get right: no start, ends before
  // their start, in their start's period, on a period start, scheduled or done; trials ending
  // before or after the end; cancellations; another currency; customers with overlapping rows.
  await sql`INSERT INTO subscriptions (id, customer_id, created_at, started_at, trial_end, ends_at, ended_at, canceled_at, currency, amount, ${sql.join(
    kept.map((column) => sql.ref(column)),
  )})
    SELECT gen_random_uuid(), (${bought.map((checkout) => checkout.customer_id)}::uuid[])[1 + i % 3], coalesce(s.at, '2026-02-20'), s.at,
      CASE WHEN i % 4 = 0 THEN coalesce(s.at, '2026-03-01') + (i % 9) * interval '1 day' + (i % 24) * interval '1 hour' END,
      CASE WHEN i % 11 = 0 THEN s.at - interval '2 days'
           WHEN i % 13 = 0 THEN date_trunc('day', s.at + interval '3 days', 'America/New_York')
           WHEN i % 3 = 0 THEN coalesce(s.at, '2026-03-01') + (i * 31 % 40) * interval '1 day' + (i % 5) * interval '1 hour' END,
      CASE WHEN i % 10 = 0 THEN coalesce(s.at, '2026-03-01') + (i % 7) * interval '1 hour' END,
      CASE WHEN i % 5 = 0 THEN coalesce(s.at, '2026-03-01') + i * interval '1 hour' END,
      CASE WHEN i % 7 = 0 THEN 'jpy' ELSE t.currency END, 100 + i,
      ${sql.join(kept.map((column) => sql.ref(`t.${column}`)))}
    FROM subscriptions t, generate_series(1, 240) i,
      LATERAL (SELECT CASE WHEN i % 17 = 0 THEN NULL ELSE '2026-02-20'::timestamptz + (i * 7919 % 1900) * interval '37 minutes' END AS at) s
    WHERE t.id = ${bought[0]!.subscription_id}`.execute(ctx.deps.db);
  const { rows } = await sql<{ currency: string }>`SELECT currency FROM subscriptions WHERE id = ${bought[0]!.subscription_id}`.execute(
    ctx.deps.db,
  );
  currency = rows[0]!.currency;
});
afterAll(() => ctx.close());

const COLUMNS = [
  "active_subscriptions",
  "committed_subscriptions",
  "monthly_recurring_revenue",
  "committed_monthly_recurring_revenue",
  "trial_monthly_recurring_revenue",
  "trial_committed_monthly_recurring_revenue",
  "subscription_customers",
  "churn_canceled",
  "churn_base",
] as const;
type Column = (typeof COLUMNS)[number];

const STEP: Record<TimeInterval, string> = { hour: "1 hour", day: "1 day", week: "1 week", month: "1 month", year: "1 year" };

/** The definitions, per period: alive at its end (started by it, not ended by it), the trial judged against its end. */
async function oracle(startDate: string, endDate: string, interval: TimeInterval, timezone: string) {
  return ctx.deps.db.transaction().execute(async (trx) => {
    await sql`SELECT set_config('TimeZone', ${timezone}, true)`.execute(trx);
    const step = sql`${STEP[interval]}::interval`;
    const trunc = (column: string) => sql`date_trunc(${sql.lit(interval)}, ${sql.ref(column)})`;
    const { rows } = await sql<Record<Column, string | null>>`
      WITH rows AS (
        SELECT s.*, coalesce(s.ended_at, s.ends_at) AS end_at FROM subscriptions s WHERE s.organization_id = ${organizationId}
      ), series AS (
        SELECT t FROM generate_series(date_trunc(${sql.lit(interval)}, ${startDate}::date::timestamptz),
          (${endDate}::date + 1)::timestamptz - interval '1 microsecond', ${step}) t
      )
      SELECT
        count(r.id) AS active_subscriptions,
        count(r.id) FILTER (WHERE r.end_at IS NULL) AS committed_subscriptions,
        sum(r.amount) FILTER (WHERE r.currency = ${currency} AND (r.trial_end IS NULL OR r.trial_end < se.t + ${step})) AS monthly_recurring_revenue,
        sum(r.amount) FILTER (WHERE r.currency = ${currency} AND (r.trial_end IS NULL OR r.trial_end < se.t + ${step}) AND r.end_at IS NULL) AS committed_monthly_recurring_revenue,
        sum(r.amount) FILTER (WHERE r.currency = ${currency} AND r.trial_end >= se.t + ${step}) AS trial_monthly_recurring_revenue,
        sum(r.amount) FILTER (WHERE r.currency = ${currency} AND r.trial_end >= se.t + ${step} AND r.end_at IS NULL) AS trial_committed_monthly_recurring_revenue,
        count(DISTINCT r.customer_id) FILTER (WHERE r.currency = ${currency}) AS subscription_customers,
        (SELECT count(*) FROM rows c WHERE c.canceled_at >= w.ws AND c.canceled_at < w.we) AS churn_canceled,
        (SELECT count(*) FROM rows c WHERE c.started_at <= w.ws AND (c.end_at IS NULL OR c.end_at > w.ws)) AS churn_base
      FROM series se
      CROSS JOIN LATERAL (
        SELECT ${interval === "year" ? sql`se.t` : sql`se.t - interval '30 days'`} AS ws,
               ${interval === "year" ? sql`se.t + interval '1 year'` : sql`se.t`} AS we
      ) w
      LEFT JOIN rows r ON (r.started_at IS NULL OR ${trunc("r.started_at")} <= se.t) AND (r.end_at IS NULL OR ${trunc("r.end_at")} > se.t)
      GROUP BY se.t, w.ws, w.we ORDER BY se.t`.execute(trx);
    return rows.map((row) => Object.fromEntries(COLUMNS.map((column) => [column, Number(row[column] ?? 0)])) as Record<Column, number>);
  });
}

const read = async (startDate: string, endDate: string, interval: TimeInterval, timezone: string) =>
  (
    await metricSources(ctx.deps.db, {
      startDate,
      endDate,
      interval,
      timezone,
      families: new Set(["subscriptions", "churn_rate"] as const),
      filter: { organizationIds: [organizationId], productIds: null, billingTypes: null, customerIds: null, currency },
      ordersFromRollups: true,
    })
  ).map((period) => period.values);

describe("subscription stock and churn windows as running sums", () => {
  it("has a history with every edge in it: trials, ends, cancellations, a churn base, another currency", async () => {
    const days = await oracle("2026-02-15", "2026-04-20", "day", "Europe/Berlin");
    for (const column of ["trial_monthly_recurring_revenue", "churn_canceled", "churn_base"] as const) {
      expect(days.some((period) => period[column] > 0)).toBe(true);
    }
    expect(new Set(days.map((period) => period.active_subscriptions - period.committed_subscriptions)).size).toBeGreaterThan(2);
  });

  it.each([
    ["2026-02-15", "2026-04-20", "day", "America/New_York"],
    ["2026-02-15", "2026-04-20", "day", "Europe/Berlin"],
    ["2026-03-01", "2026-04-30", "day", "Asia/Kolkata"],
    ["2026-03-07", "2026-03-09", "hour", "America/New_York"],
    ["2026-03-28", "2026-03-30", "hour", "Europe/Berlin"],
    ["2026-02-01", "2026-04-30", "week", "UTC"],
    ["2026-01-01", "2026-06-30", "month", "Pacific/Auckland"],
    ["2026-01-01", "2026-12-31", "year", "UTC"],
  ] as const)("answers %s to %s by %s in %s as the definition does", async (startDate, endDate, interval, timezone) => {
    const expected = await oracle(startDate, endDate, interval, timezone);
    // The history is not empty in the window.
    expect(expected.some((period) => period.active_subscriptions > 0)).toBe(true);
    expect(await read(startDate, endDate, interval, timezone)).toEqual(expected);
  });
});
