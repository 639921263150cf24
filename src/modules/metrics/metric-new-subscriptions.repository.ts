import { sql, type RawBuilder } from "kysely";
import type { FamilyScope } from "./metric-families.repository.ts";

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
 * The CTE `new_subs` (t, n), for days, weeks, months and years. A period (clipped to the window)
 * whose own two midnights and clipped bounds have one whole-hour offset k is exactly the dates at k
 * from its first to its last day, and "the end falls in the same period" is the rows' boolean for
 * the interval: each offset those periods use (one, or two across DST) is read once over the range
 * of their days, by the key. The periods across a DST change (23- and 25-hour days, 2 to 4 weeks or
 * months a year; never a year) are no dates at one offset: they count the subscriptions created
 * between their bounds, by the index on (organization, created_at) that holds the scheduled end, as
 * the per-request read does.
 */
export function newSubscriptionsFromDayRollups({ orgs, interval, step, trunc }: FamilyScope) {
  if (interval === "hour") throw new Error("new subscriptions by hour are read from the subscriptions");
  const offset = (instant: RawBuilder<unknown>) => sql`extract(timezone FROM ${instant})`;
  return [
    sql`new_sub_periods AS (
      SELECT p.*, ${offset(sql`p.t`)}::int / 3600 AS utc_offset,
        ${offset(sql`p.t`)} = ${offset(sql`p.t + ${step}`)} AND ${offset(sql`p.t`)} = ${offset(sql`p.lo`)} AND ${offset(sql`p.t`)} = ${offset(sql`p.hi`)}
          AND ${offset(sql`p.t`)}::int % 3600 = 0 AND ${offset(sql`p.t`)}::int BETWEEN -43200 AND 50400 AS whole
      FROM (SELECT se.t, greatest(se.t, b.lo) AS lo, least(se.t + ${step}, b.hi) AS hi FROM series se, bounds b) p
    )`,
    sql`new_sub_rows AS (
      SELECT o.utc_offset, r.day, r.n
      FROM (SELECT utc_offset, min(lo)::date AS lo, max(hi)::date AS hi FROM new_sub_periods WHERE whole GROUP BY 1) o CROSS JOIN LATERAL (
        SELECT r.day, sum(r.created) FILTER (WHERE NOT ${SAME_PERIOD[interval]}) AS n FROM metric_subscription_new_day_rollups r
        WHERE r.organization_id = ANY(${orgs}) AND r.utc_offset = o.utc_offset AND r.day >= o.lo AND r.day < o.hi
        GROUP BY 1
      ) r
    )`,
    sql`new_subs AS (
      SELECT p.t, sum(r.n) AS n FROM new_sub_periods p JOIN new_sub_rows r ON r.utc_offset = p.utc_offset AND r.day >= p.lo::date AND r.day < p.hi::date
      WHERE p.whole GROUP BY 1
      UNION ALL
      SELECT p.t, (
        SELECT count(*) FROM subscriptions s
        WHERE s.organization_id = ANY(${orgs}) AND s.created_at >= p.lo AND s.created_at < p.hi
          AND ${trunc(sql`s.ends_at`)} IS DISTINCT FROM p.t
      )
      FROM new_sub_periods p
      WHERE NOT p.whole
    )`,
  ];
}
