import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rebuildSubscriptionRollups } from "../../../src/modules/metrics/metric-rollups.repository.ts";
import { CANCELLATION_REASONS } from "../../../src/modules/metrics/metric-subscriptions.repository.ts";
import { metricSources } from "../../../src/modules/metrics/metrics.repository.ts";
import type { TimeInterval } from "../../../src/schema/time-intervals.ts";
import { createTestContext, type TestContext } from "../../helpers/context.ts";
import { columnsBesides } from "../../helpers/table-columns.ts";
import { createOrganization, createOrganizationToken, createProduct, registerForTax } from "../../helpers/factories.ts";
import { buyThroughCheckout } from "../subscriptions/subscription-helpers.ts";

// The subscription stock by day from its day rollups (docs/decisions.md, "Metrics: subscription day
// rollups", "subscription flows from day rollups" and "new subscriptions from day rollups") — the stock,
// the churn windows, the churned, the canceled by reason and the new — against the running sums of the subscriptions, which the stock test checks against the
// per-period definition: the same numbers on a history written through the triggers (inserts,
// updates, deletes, an inclusive subscription's tax rate), across DST days, and after a rebuild.

let ctx: TestContext;
let token: string;
let organizationId: string;
let currency: string;
let inclusiveSubscription: string;

const GB = { customer_billing_address: { country: "GB", line1: "1 Lane", line2: null, city: "London", postal_code: "E1", state: null } };

beforeAll(async () => {
  ctx = await createTestContext();
  organizationId = (await createOrganization(ctx.deps)).id;
  await registerForTax(ctx.deps, organizationId);
  token = await createOrganizationToken(ctx.deps, organizationId, ["checkouts:write", "metrics:read"]);
  ctx.clock.set(new Date("2026-02-20T12:00:00Z"));
  const monthly = await createProduct(ctx.deps, organizationId, {
    product: { name: "Monthly", recurring_interval: "month", recurring_interval_count: 1 },
    prices: [{ amount_type: "fixed", price_amount: 1000, tax_behavior: "exclusive" }],
  });
  const inclusive = await createProduct(ctx.deps, organizationId, {
    product: { name: "Inclusive", recurring_interval: "month", recurring_interval_count: 1 },
    prices: [{ amount_type: "fixed", price_amount: 1200, tax_behavior: "inclusive" }],
  });
  const bought = [];
  for (const email of ["a@example.com", "b@example.com", "c@example.com"]) {
    bought.push((await buyThroughCheckout(ctx, token, monthly.product.id, { buyer: { customer_email: email } })).checkout);
  }
  inclusiveSubscription = (
    await buyThroughCheckout(ctx, token, inclusive.product.id, { buyer: { customer_email: "d@example.com", ...GB } })
  ).checkout.subscription_id;
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
    "customer_cancellation_reason",
  ]);
  // 200 copies over 20 February to 10 April 2026 (the DST changes of New York, Berlin and Auckland
  // inside), with no start, ends before the start or on a local midnight, trials, another currency.
  await sql`INSERT INTO subscriptions (id, customer_id, created_at, started_at, trial_end, ends_at, ended_at, canceled_at, currency, amount,
    customer_cancellation_reason, ${sql.join(kept.map((column) => sql.ref(column)))})
    SELECT gen_random_uuid(), (${bought.map((checkout) => checkout.customer_id)}::uuid[])[1 + i % 3], coalesce(s.at, '2026-02-20'), s.at,
      CASE WHEN i % 4 = 0 THEN coalesce(s.at, '2026-03-01') + (i % 9) * interval '1 day' + (i % 24) * interval '1 hour' END,
      CASE WHEN i % 11 = 0 THEN s.at - interval '2 days'
           WHEN i % 13 = 0 THEN date_trunc('day', s.at + interval '3 days', 'America/New_York')
           WHEN i % 3 = 0 THEN coalesce(s.at, '2026-03-01') + (i * 31 % 40) * interval '1 day' + (i % 5) * interval '1 hour' END,
      CASE WHEN i % 10 = 0 THEN coalesce(s.at, '2026-03-01') + (i % 7) * interval '1 hour' END,
      CASE WHEN i % 5 = 0 THEN coalesce(s.at, '2026-03-01') + i * interval '1 hour' END,
      CASE WHEN i % 7 = 0 THEN 'jpy' ELSE t.currency END, 100 + i,
      CASE WHEN i % 5 = 0 AND i % 45 <> 0 THEN (${CANCELLATION_REASONS}::text[])[1 + i % 8] END,
      ${sql.join(kept.map((column) => sql.ref(`t.${column}`)))}
    FROM subscriptions t, generate_series(1, 200) i,
      LATERAL (SELECT CASE WHEN i % 17 = 0 THEN NULL ELSE '2026-02-20'::timestamptz + (i * 7919 % 1900) * interval '37 minutes' END AS at) s
    WHERE t.id = ${bought[0]!.subscription_id}`.execute(ctx.deps.db);
  // New subscriptions around midnight: created 10 minutes before the hours that are midnights in
  // UTC, New York, Berlin or Auckland, on the DST days and those around them, scheduled to end 20
  // minutes later (across that midnight) or earlier (the same local day); and two created on
  // Auckland's 25-hour day, ending 23½ hours later, the same local day there and at no offset.
  await sql`INSERT INTO subscriptions (id, customer_id, created_at, started_at, ends_at, currency, amount,
    ${sql.join(kept.map((column) => sql.ref(column)))})
    SELECT gen_random_uuid(), (${bought.map((checkout) => checkout.customer_id)}::uuid[])[1 + n % 3], c.at, c.at, c.at + c.gap,
      t.currency, 400 + n, ${sql.join(kept.map((column) => sql.ref(`t.${column}`)))}
    FROM subscriptions t, (
      SELECT row_number() OVER () AS n, at, gap FROM (
        SELECT d + h * interval '1 hour' - interval '10 minutes' AS at, CASE WHEN (d::date - '2026-01-01' + h) % 2 = 0 THEN 1 ELSE -1 END * interval '20 minutes' AS gap
        FROM unnest(ARRAY['2026-03-07', '2026-03-08', '2026-03-09', '2026-03-28', '2026-03-29', '2026-03-30', '2026-04-03', '2026-04-04', '2026-04-05']::timestamptz[]) d,
          unnest(ARRAY[0, 4, 5, 11, 12, 22, 23]) h
        UNION ALL VALUES ('2026-04-04T11:50Z'::timestamptz, interval '23 hours 30 minutes'), ('2026-04-04T11:10Z', interval '23 hours 30 minutes')
      ) a
    ) c
    WHERE t.id = ${bought[0]!.subscription_id}`.execute(ctx.deps.db);
  // Ends either side of the week's, month's or year's ending midnight: created 2 or 12 days (or 70
  // days) before an hour that is a Monday's or a 1st's midnight in UTC, New York (+4, +5 hours),
  // Berlin (−1, −2) or Auckland (−12, −13),
  // ending 10 minutes before or after it, so one zone reads the end in the creation's period and
  // another not; the months and weeks across a DST change among them.
  await sql`INSERT INTO subscriptions (id, customer_id, created_at, started_at, ends_at, currency, amount,
    ${sql.join(kept.map((column) => sql.ref(column)))})
    SELECT gen_random_uuid(), (${bought.map((checkout) => checkout.customer_id)}::uuid[])[1 + n % 3], c.at, c.at, c.ends,
      t.currency, 700 + n, ${sql.join(kept.map((column) => sql.ref(`t.${column}`)))}
    FROM subscriptions t, (
      SELECT row_number() OVER () AS n, m - back AS at, m + side * interval '10 minutes' AS ends
      FROM unnest(ARRAY['2026-03-01', '2026-03-09', '2026-03-30', '2026-04-01', '2026-04-06', '2026-05-01']::timestamptz[]) d,
        unnest(ARRAY[-13, -12, -2, -1, 0, 4, 5]) h,
        LATERAL (SELECT d + h * interval '1 hour' AS m) mm,
        unnest(ARRAY[interval '2 days', interval '12 days', interval '70 days']) back,
        unnest(ARRAY[-1, 1]) side
    ) c
    WHERE t.id = ${bought[0]!.subscription_id}`.execute(ctx.deps.db);
  // Later writes through the update and delete triggers: ends moved, a customer changed, rows removed.
  await sql`UPDATE subscriptions SET ended_at = started_at + interval '9 days' WHERE organization_id = ${organizationId} AND amount % 6 = 1`.execute(
    ctx.deps.db,
  );
  await sql`UPDATE subscriptions SET customer_id = ${bought[2]!.customer_id} WHERE organization_id = ${organizationId} AND amount % 19 = 0`.execute(
    ctx.deps.db,
  );
  // A reason given later, one changed, one cleared (the update trigger reads the reason).
  await sql`UPDATE subscriptions SET customer_cancellation_reason = CASE WHEN amount % 45 = 0 THEN 'unused'
      WHEN amount % 10 = 0 THEN 'too_expensive' END
    WHERE organization_id = ${organizationId} AND canceled_at IS NOT NULL AND amount % 3 = 0`.execute(ctx.deps.db);
  // Creations and scheduled ends moved (the new subscriptions' update trigger).
  await sql`UPDATE subscriptions SET created_at = created_at - interval '1 hour', ends_at = created_at + interval '40 minutes'
    WHERE organization_id = ${organizationId} AND amount % 29 = 0`.execute(ctx.deps.db);
  await sql`DELETE FROM subscriptions WHERE organization_id = ${organizationId} AND amount % 23 = 0`.execute(ctx.deps.db);
  const { rows } = await sql<{ currency: string }>`SELECT currency FROM subscriptions WHERE id = ${bought[0]!.subscription_id}`.execute(
    ctx.deps.db,
  );
  currency = rows[0]!.currency;
  // Some 270 subscriptions written one by one through the triggers: longer than the default hook
  // timeout on a loaded machine.
}, 180_000);
afterAll(() => ctx.close());

const read = async (
  startDate: string,
  endDate: string,
  timezone: string,
  subscriptionsFromRollups: boolean,
  interval: TimeInterval = "day",
) =>
  (
    await metricSources(ctx.deps.db, {
      startDate,
      endDate,
      interval,
      timezone,
      families: new Set(["subscriptions", "churn_rate", "churned", "canceled", "new_subscriptions"] as const),
      filter: { organizationIds: [organizationId], productIds: null, billingTypes: null, customerIds: null, currency },
      ordersFromRollups: true,
      subscriptionsFromRollups,
    })
  ).map((period) => period.values);

const WINDOWS = [
  ["2026-02-15", "2026-04-20", "America/New_York"],
  ["2026-03-25", "2026-04-10", "Europe/Berlin"],
  ["2026-03-01", "2026-04-30", "Pacific/Auckland"],
  ["2026-03-25", "2026-04-05", "UTC"],
] as const;

describe("subscription stock from day rollups", () => {
  it("keeps the facts the subscriptions give, through inserts, updates and deletes", async () => {
    const { rows } = await sql<{ n: string }>`SELECT count(*) AS n FROM (
      (SELECT * FROM metric_subscription_facts WHERE organization_id = ${organizationId}
        EXCEPT ALL SELECT * FROM metric_subscription_fact_source WHERE organization_id = ${organizationId})
      UNION ALL
      (SELECT * FROM metric_subscription_fact_source WHERE organization_id = ${organizationId}
        EXCEPT ALL SELECT * FROM metric_subscription_facts WHERE organization_id = ${organizationId})
    ) d`.execute(ctx.deps.db);
    expect(Number(rows[0]!.n)).toBe(0);
    const newRows = await sql<{ n: string }>`SELECT count(*) AS n FROM (
      (SELECT utc_offset, day, end_same_week, end_same_month, end_same_year, sum(created) FROM metric_subscription_new_day_rollups
        WHERE organization_id = ${organizationId} GROUP BY 1, 2, 3, 4, 5 HAVING sum(created) <> 0
        EXCEPT ALL SELECT utc_offset, day, end_same_week, end_same_month, end_same_year, created FROM metric_subscription_new_day_source
        WHERE organization_id = ${organizationId})
      UNION ALL
      (SELECT utc_offset, day, end_same_week, end_same_month, end_same_year, created FROM metric_subscription_new_day_source
        WHERE organization_id = ${organizationId}
        EXCEPT ALL SELECT utc_offset, day, end_same_week, end_same_month, end_same_year, sum(created) FROM metric_subscription_new_day_rollups
        WHERE organization_id = ${organizationId} GROUP BY 1, 2, 3, 4, 5)
    ) d`.execute(ctx.deps.db);
    expect(Number(newRows.rows[0]!.n)).toBe(0);
  });

  it.each(WINDOWS)("answers %s to %s by day in %s as the running sums do", async (startDate, endDate, timezone) => {
    const expected = await read(startDate, endDate, timezone, false);
    expect(expected.some((period) => period["trial_monthly_recurring_revenue"]! > 0)).toBe(true);
    expect(new Set(expected.map((period) => period["active_subscriptions"])).size).toBeGreaterThan(2);
    expect(expected.some((period) => period["churn_canceled"]! > 0 && period["churn_base"]! > 0)).toBe(true);
    expect(expected.some((period) => period["churned_subscriptions"]! > 0)).toBe(true);
    expect(new Set(expected.map((period) => period["new_subscriptions"])).size).toBeGreaterThan(2);
    expect(
      CANCELLATION_REASONS.filter((reason) => expected.some((period) => period[`canceled_subscriptions_${reason}`]! > 0)).length,
    ).toBeGreaterThan(2);
    expect(
      expected.some(
        (period) =>
          period["canceled_subscriptions"]! > CANCELLATION_REASONS.reduce((n, r) => n + period[`canceled_subscriptions_${r}`]!, 0),
      ),
    ).toBe(true);
    expect(await read(startDate, endDate, timezone, true)).toEqual(expected);
  });

  // Weeks, months and years: the stock at each period's ending midnight, the flows between its two
  // midnights clipped to the window (a series starts on the Monday, 1st or 1 January before the start
  // date), the churn windows at their bounds, each midnight at its own offset.
  it.each(
    WINDOWS.flatMap(([, , timezone]) =>
      (
        [
          ["2026-02-18", "2026-04-22", "week"],
          ["2026-02-10", "2026-05-12", "month"],
          ["2026-02-25", "2026-04-02", "month"],
          ["2025-06-01", "2027-03-10", "year"],
        ] as const
      ).map(([startDate, endDate, interval]) => [startDate, endDate, interval as TimeInterval, timezone] as const),
    ),
  )("answers %s to %s by %s in %s as the running sums do", async (startDate, endDate, interval, timezone) => {
    const expected = await read(startDate, endDate, timezone, false, interval);
    expect(expected.some((period) => period["active_subscriptions"]! > 0)).toBe(true);
    expect(expected.some((period) => period["churned_subscriptions"]! > 0 && period["canceled_subscriptions"]! > 0)).toBe(true);
    // A year's churn window starts on 1 January, before the history: no base there.
    if (interval !== "year") expect(expected.some((period) => period["churn_canceled"]! > 0 && period["churn_base"]! > 0)).toBe(true);
    expect(expected.some((period) => period["new_subscriptions"]! > 0)).toBe(true);
    expect(await read(startDate, endDate, timezone, true, interval)).toEqual(expected);
  });

  it("follows an inclusive subscription's tax rate from its orders", async () => {
    const before = await read("2026-03-01", "2026-03-05", "Europe/London", true);
    await sql`UPDATE orders SET tax_rate_basis_points = 1000 WHERE subscription_id = ${inclusiveSubscription}`.execute(ctx.deps.db);
    const after = await read("2026-03-01", "2026-03-05", "Europe/London", true);
    // 12.00 holds 2.00 at 20 %, 1.09 at 10 %.
    expect(after.map((period, i) => period["monthly_recurring_revenue"]! - before[i]!["monthly_recurring_revenue"]!)).toEqual([
      91, 91, 91, 91, 91,
    ]);
    expect(after).toEqual(await read("2026-03-01", "2026-03-05", "Europe/London", false));
  });

  it.each(["day", "month"] as const)(
    "reads a half-hour zone from the running sums, and a whole-hour one from the rollups, through the API by %s",
    async (interval) => {
      for (const timezone of ["Asia/Kolkata", "America/New_York"]) {
        const response = await ctx.request({
          method: "GET",
          url: `/v1/metrics/?start_date=2026-03-01&end_date=2026-03-20&interval=${interval}&timezone=${timezone}&metrics=active_subscriptions&metrics=monthly_recurring_revenue&metrics=churn_rate&metrics=churned_subscriptions&metrics=canceled_subscriptions_too_expensive`,
          token,
        });
        expect(response.statusCode, response.body).toBe(200);
        const periods = response.json<{ periods: Record<string, number>[] }>().periods;
        const expected = await read("2026-03-01", "2026-03-20", timezone, false, interval);
        const slugs = [
          "active_subscriptions",
          "monthly_recurring_revenue",
          "churned_subscriptions",
          "canceled_subscriptions_too_expensive",
        ];
        expect(periods.map((period) => [...slugs.map((slug) => period[slug]), period["churn_rate"]])).toEqual(
          expected.map((period) => [
            ...slugs.map((slug) => period[slug]),
            period["churn_base"]! > 0 ? period["churn_canceled"]! / period["churn_base"]! : 0,
          ]),
        );
      }
    },
  );

  it("comes back to the same numbers and rows after a rebuild", async () => {
    const rowsOf = async () =>
      (
        await sql<Record<string, string>>`SELECT utc_offset, day::text, currency, sum(active) AS active, sum(committed) AS committed,
          sum(mrr) AS mrr, sum(cmrr) AS cmrr, sum(trial_mrr) AS trial_mrr, sum(trial_cmrr) AS trial_cmrr, sum(customers) AS customers,
          sum(churn_base) AS churn_base, sum(churn_canceled) AS churn_canceled, sum(churned) AS churned,
          ${sql.join(CANCELLATION_REASONS.map((reason) => sql`sum(${sql.ref(`canceled_${reason}`)})::text AS ${sql.ref(reason)}`))}
        FROM metric_subscription_day_rollups WHERE organization_id = ${organizationId}
        GROUP BY 1, 2, 3
        -- Rows whose additions were all taken back again are kept by the triggers, not written by the rebuild.
        HAVING (sum(active), sum(committed), sum(mrr), sum(cmrr), sum(trial_mrr), sum(trial_cmrr), sum(customers), sum(churn_base), sum(churn_canceled),
          sum(churned), ${sql.join(CANCELLATION_REASONS.map((reason) => sql`sum(${sql.ref(`canceled_${reason}`)})`))})
          <> (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, ${sql.join(CANCELLATION_REASONS.map(() => sql`0`))})
        ORDER BY 1, 2, 3`.execute(ctx.deps.db)
      ).rows;
    const newRowsOf = async () =>
      (
        await sql<
          Record<string, string>
        >`SELECT utc_offset, day::text, end_same_week, end_same_month, end_same_year, sum(created)::text AS created
          FROM metric_subscription_new_day_rollups WHERE organization_id = ${organizationId}
          GROUP BY 1, 2, 3, 4, 5 HAVING sum(created) <> 0 ORDER BY 1, 2, 3, 4, 5`.execute(ctx.deps.db)
      ).rows;
    const kept = await Promise.all(WINDOWS.map(([startDate, endDate, timezone]) => read(startDate, endDate, timezone, true)));
    const keptRows = await rowsOf();
    const keptNewRows = await newRowsOf();
    await sql`UPDATE metric_subscription_day_rollups SET mrr = mrr + 5, customers = customers - 1, churn_base = churn_base + 2,
      churned = churned + 1, canceled_unused = canceled_unused + 1 WHERE organization_id = ${organizationId}`.execute(ctx.deps.db);
    await sql`UPDATE metric_subscription_new_day_rollups SET created = created + 1 WHERE organization_id = ${organizationId}`.execute(
      ctx.deps.db,
    );
    expect(await read(...WINDOWS[0], true)).not.toEqual(kept[0]);
    const rebuilt = await rebuildSubscriptionRollups(ctx.deps.db, organizationId);
    expect(rebuilt.facts).toBeGreaterThan(0);
    expect(rebuilt.newDayRows).toBe(keptNewRows.length);
    expect(await rowsOf()).toEqual(keptRows);
    expect(await newRowsOf()).toEqual(keptNewRows);
    expect(await Promise.all(WINDOWS.map(([startDate, endDate, timezone]) => read(startDate, endDate, timezone, true)))).toEqual(kept);
  });
});
