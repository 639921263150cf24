import { sql, type RawBuilder } from "kysely";
import { dateAt, midnightAt, rollupOffsetOf, type FamilyScope } from "./metric-families.repository.ts";

/**
 * `new_subscriptions` from its day rollups (migrations/2026-12-04T0300_metric_new_subscription_day_rollups.ts
 * and 2026-12-05T0100_metric_new_subscription_period_ends.ts; docs/decisions.md, "Metrics: new
 * subscriptions from day rollups" and "… by week, month and year from day rollups"): per-day rows,
 * not running counts, as "unless its scheduled end falls in the same local period" depends on the
 * offset of the row's own day.
 */

/** The day rows a period of each interval leaves out: the end shares the creation's period there (same-day ends are not stored). */
const SAME_PERIOD = { day: sql`false`, week: sql`r.end_same_week`, month: sql`r.end_same_month`, year: sql`r.end_same_year` } as const;

/**
 * The CTE `new_subs` (t, n), for days, weeks, months and years. A period is read at the offset A of
 * its start's midnight `t`: its creations on the dates at A wholly inside its clipped bounds from
 * A's rows, less those whose boolean for the interval says the end shares the creation's period at
 * A; those in the hours left at either end (none unless the period crosses a DST change) by the index
 * on (organization, created_at), with the per-request rule. A's period ends at its own midnight `ma`,
 * an hour before or after the true end `e` across a change: an end between the two was judged on
 * the wrong side by the rows, so the rows' creations ending there are added (e before ma: the rows
 * said "same period") or taken away (after), by the index on (organization, ends_at).
 */
export function newSubscriptionsFromDayRollups({ orgs, interval, step, trunc }: FamilyScope) {
  if (interval === "hour") throw new Error("new subscriptions by hour are read from the subscriptions");
  // Probed only for a range that holds hours (a period whose ends are A's midnights has none).
  const created = (from: RawBuilder<unknown>, to: RawBuilder<unknown>) => sql`CASE WHEN ${from} < ${to} THEN (
    SELECT count(*) FROM subscriptions s
    WHERE s.organization_id = ANY(${orgs}) AND s.created_at >= ${from} AND s.created_at < ${to}
      AND ${trunc(sql`s.ends_at`)} IS DISTINCT FROM p.t
  ) ELSE 0 END`;
  return [
    sql`new_sub_periods AS (
      SELECT d.*, least(d.m_lo, d.hi) AS h1, greatest(d.m_hi, least(d.m_lo, d.hi)) AS h2
      FROM (
        SELECT q.*, ${midnightAt(sql`q.d_lo`, sql`q.a`)} AS m_lo, ${midnightAt(sql`q.d_hi`, sql`q.a`)} AS m_hi,
          ${midnightAt(sql`(date_trunc(${sql.lit(interval)}, q.t::date::timestamp) + ${step})::date`, sql`q.a`)} AS ma
        FROM (
          SELECT p.*, ${dateAt(sql`p.lo - interval '1 microsecond'`, sql`p.a`)} + 1 AS d_lo, ${dateAt(sql`p.hi`, sql`p.a`)} AS d_hi
          FROM (
            -- An offset the rows do not hold (whole hours from −12 to +14) leaves A null: all from the index.
            SELECT se.t, se.t + ${step} AS e, greatest(se.t, b.lo) AS lo, least(se.t + ${step}, b.hi) AS hi,
              ${rollupOffsetOf(sql`se.t`)} AS a
            FROM series se, bounds b
          ) p
        ) q
      ) d
    )`,
    sql`new_sub_rows AS (
      SELECT o.a, r.day, r.n
      FROM (SELECT a, min(d_lo) AS lo, max(d_hi) AS hi FROM new_sub_periods WHERE a IS NOT NULL GROUP BY 1) o CROSS JOIN LATERAL (
        SELECT r.day, sum(r.created) FILTER (WHERE NOT ${SAME_PERIOD[interval]}) AS n FROM metric_subscription_new_day_rollups r
        WHERE r.organization_id = ANY(${orgs}) AND r.utc_offset = o.a AND r.day >= o.lo AND r.day < o.hi
        GROUP BY 1
      ) r
    )`,
    sql`new_sub_day_counts AS (
      SELECT p.t, sum(r.n) AS n FROM new_sub_periods p JOIN new_sub_rows r ON r.a = p.a AND r.day >= p.d_lo AND r.day < p.d_hi GROUP BY 1
    )`,
    sql`new_subs AS (
      SELECT p.t, coalesce(c.n, 0)
        + ${created(sql`p.lo`, sql`p.h1`)} + ${created(sql`p.h2`, sql`p.hi`)}
        -- Only across a change (e <> ma); the ends' range alone inside the fence, so it is read by the
        -- ends' index and not as a period's creations by the creation index.
        + CASE WHEN p.e <> p.ma THEN sign(extract(epoch FROM p.ma - p.e)) * (
          SELECT count(*) FROM (
            SELECT s.created_at FROM subscriptions s
            WHERE s.organization_id = ANY(${orgs}) AND s.ends_at >= least(p.e, p.ma) AND s.ends_at < greatest(p.e, p.ma) OFFSET 0
          ) s
          WHERE s.created_at >= p.m_lo AND s.created_at < p.m_hi
        ) ELSE 0 END AS n
      FROM new_sub_periods p LEFT JOIN new_sub_day_counts c USING (t)
    )`,
  ];
}
