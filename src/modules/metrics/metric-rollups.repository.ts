import { sql, type RawBuilder } from "kysely";
import type { Db } from "../../db/database.ts";
import type { TimeInterval } from "../../schema/time-intervals.ts";
import type { MetricOrderFactsTable, MetricOrderRollupsTable } from "./metric-rollups.table.ts";
import { dateAt, midnightAt, rollupOffsetOf } from "./metric-families.repository.ts";

/**
 * The order rollups (docs/decisions.md, "Metrics: order rollups" and "Metrics: day rollups per
 * whole-hour UTC offset"): read per request in place of the orders, and rebuilt from the source
 * rows by `commerce-api metrics rebuild`. Triggers keep them in the transaction of every change
 * (migrations/2026-12-01T0400_metric_order_rollups.ts, 2026-12-02T0200_metric_order_day_rollups.ts).
 */

/** What the orders family of the metrics statement needs from it (see metrics.repository.ts). */
export interface OrderRollupScope {
  orgs: RawBuilder<unknown>;
  currency: string;
  interval: TimeInterval;
  /** One period, as an interval. */
  step: RawBuilder<unknown>;
  /** The local period start of a timestamp (the statement runs in the requested zone). */
  trunc: (expression: RawBuilder<unknown>) => RawBuilder<unknown>;
  productMatch: (column: RawBuilder<unknown>) => RawBuilder<unknown>;
}

/**
 * The columns of the orders family from hourly rollup rows `r` (`FROM` and `WHERE` given). A row's
 * start and previous-order hours are its hour less the lags: an order is new when its subscription
 * began in the order's period, and counts its subscription once among the renewals when the
 * previous order fell in an earlier period (all orders of one subscription in one period share newness).
 */
const hourRows = (currency: string, trunc: OrderRollupScope["trunc"], from: RawBuilder<unknown>) => sql`
  SELECT ${trunc(sql`r.hour`)} AS t, r.orders, r.revenue AS amount, r.net, r.currency = ${currency} AS priced, r.subscription,
    r.subscription AND ${trunc(sql`r.hour - r.start_lag * interval '1 hour'`)} IS NOT DISTINCT FROM ${trunc(sql`r.hour`)} AS new_subscription,
    r.prev_lag IS NULL OR ${trunc(sql`r.hour - r.prev_lag * interval '1 hour'`)} <> ${trunc(sql`r.hour`)} AS first_in_period
  ${from}`;

/** The sums of one period's rows, as the live orders family names them. */
const orderSums = sql`order_sums AS (
  SELECT t,
    sum(orders) AS orders,
    sum(orders) FILTER (WHERE priced) AS priced_orders,
    sum(amount) FILTER (WHERE priced) AS revenue,
    sum(net) FILTER (WHERE priced) AS net,
    sum(orders) FILTER (WHERE NOT subscription) AS one_time,
    sum(amount) FILTER (WHERE priced AND NOT subscription) AS one_time_revenue,
    sum(net) FILTER (WHERE priced AND NOT subscription) AS one_time_net,
    sum(amount) FILTER (WHERE priced AND new_subscription) AS new_revenue,
    sum(net) FILTER (WHERE priced AND new_subscription) AS new_net,
    sum(orders) FILTER (WHERE subscription AND NOT new_subscription AND first_in_period) AS renewed,
    sum(amount) FILTER (WHERE priced AND subscription AND NOT new_subscription) AS renewed_revenue,
    sum(net) FILTER (WHERE priced AND subscription AND NOT new_subscription) AS renewed_net
  FROM order_rows GROUP BY 1
)`;

const ordersBefore = (currency: string, from: RawBuilder<unknown>) => sql`orders_before AS (
  SELECT coalesce(sum(r.revenue) FILTER (WHERE r.currency = ${currency}), 0) AS revenue,
    coalesce(sum(r.net) FILTER (WHERE r.currency = ${currency}), 0) AS net
  ${from}
)`;

/** Before the first day: the days at the offset of its midnight, which end exactly there. */
const dayRowsBefore = (scoped: RawBuilder<unknown>) => sql`FROM metric_order_day_rollups r WHERE ${scoped}
  AND r.utc_offset = (SELECT extract(timezone FROM lo)::int / 3600 FROM bounds) AND r.day < (SELECT lo::date FROM bounds)`;

/**
 * The CTEs of the orders family from the rollups, with the columns of the live one. A period (days,
 * weeks, months, years; clipped to the window) is read at the offset A of its start's midnight: the
 * local dates at A wholly inside it from A's day rows, the hours left at either end (none, unless
 * the period crosses a DST change: 23 hours of a spring month's last day at A, the one extra hour of
 * an autumn one) from the hourly rows. A day row's "new" and "renewed" are its day lags against the
 * dates at A from the period's first to the last one starting by its end; that is exact for every
 * date but a subscription starting after its order, on the date at A holding the period's end when
 * that end is no midnight at A: those rows are read again from their days' hours, which tell on
 * which side of the end the start fell (docs/decisions.md, "Metrics: order periods across a DST
 * change from day rows"). Hours read the hourly rows. Before the window: the day rows at the offset
 * of its first midnight.
 */
export const orderRollupCtes = ({ orgs, currency, interval, step, trunc, productMatch }: OrderRollupScope) => {
  const scoped = sql`r.organization_id = ANY(${orgs}) AND ${productMatch(sql`r.product_id`)}`;
  if (interval === "hour") {
    return [
      sql`order_rows AS (${hourRows(
        currency,
        trunc,
        sql`FROM metric_order_rollups r WHERE ${scoped} AND r.hour >= (SELECT lo FROM bounds) AND r.hour < (SELECT hi FROM bounds)`,
      )})`,
      orderSums,
      ordersBefore(currency, dayRowsBefore(scoped)),
    ];
  }
  return [
    // t0, tx: the dates at A a day row's lags are judged against ([t0, tx)); edge: the period ends
    // off A's midnights; [lo, h1) and [h2, hi): the hours outside the day rows' dates [d_lo, d_hi).
    sql`order_periods AS (
      SELECT d.*, least(${midnightAt(sql`d.d_lo`, sql`d.a`)}, d.hi) AS h1,
        greatest(${midnightAt(sql`d.d_hi`, sql`d.a`)}, least(${midnightAt(sql`d.d_lo`, sql`d.a`)}, d.hi)) AS h2
      FROM (
        SELECT q.*, q.t::date AS t0, ${dateAt(sql`q.t + ${step}`, sql`q.a`)} AS tx,
          q.t + ${step} <> ${midnightAt(dateAt(sql`q.t + ${step}`, sql`q.a`), sql`q.a`)} AS edge,
          -- The first date at A starting at or after lo, the first one not ending by hi.
          ${dateAt(sql`q.lo - interval '1 microsecond'`, sql`q.a`)} + 1 AS d_lo, ${dateAt(sql`q.hi`, sql`q.a`)} AS d_hi
        FROM (
          -- An offset the day rows do not hold (whole hours from −12 to +14) leaves A null: all hours.
          SELECT se.t, greatest(se.t, b.lo) AS lo, least(se.t + ${step}, b.hi) AS hi,
            ${rollupOffsetOf(sql`se.t`)} AS a
          FROM series se, bounds b
        ) q
      ) d
    )`,
    // A range of the key (organization, offset, day) per period, not a scan of every offset's rows:
    // OFFSET 0 keeps the planner from flattening the lateral read into a hash join over them all.
    sql`order_day_rows AS (
      SELECT p.t, p.a, p.t0, p.tx, r.day, r.orders, r.revenue, r.net, r.currency, r.subscription, r.start_day, r.prev_day,
        p.edge AND r.start_day IS NOT DISTINCT FROM p.tx AS ambiguous
      FROM order_periods p CROSS JOIN LATERAL (
        SELECT r.* FROM metric_order_day_rollups r
        WHERE ${scoped} AND r.utc_offset = p.a AND r.day >= p.d_lo AND r.day < p.d_hi OFFSET 0
      ) r
    )`,
    sql`order_rows AS (
      SELECT t, orders, revenue AS amount, net, currency = ${currency} AS priced, subscription,
        subscription AND start_day >= t0 AND start_day < tx AS new_subscription,
        prev_day IS NULL OR NOT (prev_day >= t0 AND prev_day < tx) AS first_in_period
      FROM order_day_rows WHERE NOT ambiguous
      UNION ALL
      ${hourRows(
        currency,
        trunc,
        // Only the ranges that hold hours are probed (a period whose ends are A's midnights has none).
        sql`FROM order_periods p CROSS JOIN LATERAL (VALUES (p.lo, p.h1), (p.h2, p.hi)) s(lo, hi)
          JOIN metric_order_rollups r ON r.hour >= s.lo AND r.hour < s.hi WHERE s.lo < s.hi AND ${scoped}`,
      )}
      UNION ALL
      -- The ambiguous rows' orders: their days' hours whose subscription starts on tx at A.
      ${hourRows(
        currency,
        trunc,
        sql`FROM (SELECT DISTINCT a, day, tx FROM order_day_rows WHERE ambiguous) d
          JOIN metric_order_rollups r ON r.hour >= ${midnightAt(sql`d.day`, sql`d.a`)} AND r.hour < ${midnightAt(sql`d.day + 1`, sql`d.a`)}
          WHERE ${scoped} AND r.subscription AND r.hour - r.start_lag * interval '1 hour' >= ${midnightAt(sql`d.tx`, sql`d.a`)}
            AND r.hour - r.start_lag * interval '1 hour' < ${midnightAt(sql`d.tx + 1`, sql`d.a`)}`,
      )}
    )`,
    orderSums,
    ordersBefore(currency, dayRowsBefore(scoped)),
  ];
};

/**
 * Whether the zone's offset is a whole number of hours over the range (a day's margin either side),
 * so its local periods begin on UTC hours and the hourly rollups answer exactly. Zones such as
 * Asia/Kolkata (+05:30) are read from the source rows instead. The range runs from the start of the
 * `interval`'s period holding `startDate` to the end of the one holding `endDate`, whose midnights the reads use.
 */
export async function wholeHourZone(
  db: Db,
  timezone: string,
  startDate: string,
  endDate: string,
  interval: TimeInterval = "day",
): Promise<boolean> {
  const { rows } = await sql<{ whole: boolean }>`
    SELECT bool_and(extract(epoch FROM (d AT TIME ZONE ${timezone}) - (d AT TIME ZONE 'UTC'))::bigint % 3600 = 0) AS whole
    FROM generate_series(date_trunc(${interval}, ${startDate}::timestamp) - interval '1 day',
      date_trunc(${interval}, ${endDate}::timestamp) + ${`1 ${interval}`}::interval + interval '1 day', interval '1 day') d`.execute(db);
  return rows[0]?.whole === true;
}

/**
 * Rewrites the rollups of one organization (null: all) from the source rows, through the view the
 * triggers read; the day rollups are filled from the facts' one insert by its trigger. The exclusive locks hold back the triggers of
 * concurrent writes meanwhile, so none of them adds to rows being rewritten.
 */
export async function rebuildOrderRollups(
  db: Db,
  organizationId: string | null,
): Promise<{ orders: number; rows: number; dayRows: number }> {
  return db.transaction().execute(async (trx) => {
    await sql`LOCK TABLE metric_order_facts, metric_order_rollups, metric_order_day_rollups IN EXCLUSIVE MODE`.execute(trx);
    const scope = (column: keyof MetricOrderFactsTable & keyof MetricOrderRollupsTable) =>
      organizationId === null ? sql`true` : sql`${sql.ref(column)} = ${organizationId}::uuid`;
    await sql`DELETE FROM metric_order_rollups WHERE ${scope("organization_id")}`.execute(trx);
    // The day rows are deleted with the facts: subtracting the facts from them first (the delete
    // trigger, as costly as building them) would be wasted. Disabling it is transactional and
    // behind the exclusive lock, so no other writer's delete goes uncounted.
    await sql`ALTER TABLE metric_order_facts DISABLE TRIGGER metrics_order_facts_deleted`.execute(trx);
    await sql`DELETE FROM metric_order_facts WHERE ${scope("organization_id")}`.execute(trx);
    await sql`ALTER TABLE metric_order_facts ENABLE TRIGGER metrics_order_facts_deleted`.execute(trx);
    await sql`DELETE FROM metric_order_day_rollups WHERE ${scope("organization_id")}`.execute(trx);
    const facts =
      await sql`INSERT INTO metric_order_facts SELECT * FROM metric_order_fact_source WHERE ${scope("organization_id")}`.execute(trx);
    const rollups = await sql`INSERT INTO metric_order_rollups
        (organization_id, hour, product_id, currency, subscription, start_lag, prev_lag, orders, revenue, net)
      SELECT organization_id, hour, product_id, currency, subscription_id IS NOT NULL, start_lag, prev_lag, count(*), sum(revenue), sum(net)
      FROM metric_order_facts WHERE ${scope("organization_id")}
      GROUP BY organization_id, hour, product_id, currency, subscription_id IS NOT NULL, start_lag, prev_lag`.execute(trx);
    const days = await sql<{ n: string }>`SELECT count(*) AS n FROM metric_order_day_rollups WHERE ${scope("organization_id")}`.execute(
      trx,
    );
    return {
      orders: Number(facts.numAffectedRows ?? 0),
      rows: Number(rollups.numAffectedRows ?? 0),
      dayRows: Number(days.rows[0]?.n ?? 0),
    };
  });
}

/**
 * Rewrites the subscription day rollups of one organization (null: all) from the subscriptions:
 * the facts from their view in one insert, whose statement trigger fills the day rows (as for the
 * orders' day rows, the delete trigger is off while the facts it would subtract are deleted with their rows),
 * and the new subscriptions' day rows.
 */
export async function rebuildSubscriptionRollups(
  db: Db,
  organizationId: string | null,
): Promise<{ facts: number; dayRows: number; newDayRows: number }> {
  return db.transaction().execute(async (trx) => {
    await sql`LOCK TABLE metric_subscription_facts, metric_subscription_day_rollups IN EXCLUSIVE MODE`.execute(trx);
    const scope = organizationId === null ? sql`true` : sql`organization_id = ${organizationId}::uuid`;
    await sql`ALTER TABLE metric_subscription_facts DISABLE TRIGGER metrics_subscription_facts_deleted`.execute(trx);
    await sql`DELETE FROM metric_subscription_facts WHERE ${scope}`.execute(trx);
    await sql`ALTER TABLE metric_subscription_facts ENABLE TRIGGER metrics_subscription_facts_deleted`.execute(trx);
    await sql`DELETE FROM metric_subscription_day_rollups WHERE ${scope}`.execute(trx);
    const facts = await sql`INSERT INTO metric_subscription_facts SELECT * FROM metric_subscription_fact_source WHERE ${scope}`.execute(
      trx,
    );
    const days = await sql<{ n: string }>`SELECT count(*) AS n FROM metric_subscription_day_rollups WHERE ${scope}`.execute(trx);
    const newDayRows = await rebuildNewSubscriptionRollups(trx, organizationId);
    return { facts: Number(facts.numAffectedRows ?? 0), dayRows: Number(days.rows[0]?.n ?? 0), newDayRows };
  });
}

/**
 * Rewrites the new subscriptions' day rows of one organization (null: all) from the subscriptions
 * (the view the migration's backfill read; migrations/2026-12-04T0300_metric_new_subscription_day_rollups.ts),
 * in the transaction of the subscription rollups' rebuild, which has locked their facts first: the
 * order in which the subscriptions' writers take them. Returns the rows written.
 */
async function rebuildNewSubscriptionRollups(trx: Db, organizationId: string | null): Promise<number> {
  await sql`LOCK TABLE metric_subscription_new_day_rollups IN EXCLUSIVE MODE`.execute(trx);
  const scope = organizationId === null ? sql`true` : sql`organization_id = ${organizationId}::uuid`;
  await sql`DELETE FROM metric_subscription_new_day_rollups WHERE ${scope}`.execute(trx);
  const inserted = await sql`INSERT INTO metric_subscription_new_day_rollups
      (organization_id, utc_offset, day, end_same_week, end_same_month, end_same_year, slot, created)
    SELECT organization_id, utc_offset, day, end_same_week, end_same_month, end_same_year, 0, created
    FROM metric_subscription_new_day_source WHERE ${scope}`.execute(trx);
  return Number(inserted.numAffectedRows ?? 0);
}
