import { sql } from "kysely";
import { seriesDays, type FamilyScope } from "./metric-families.repository.ts";

/**
 * `new_subscriptions` by day from its day rollups (migrations/2026-12-04T0300_metric_new_subscription_day_rollups.ts,
 * docs/decisions.md, "Metrics: new subscriptions from day rollups"): per-day rows, not running
 * counts, as "unless its scheduled end falls in the same local day" depends on the offset of the
 * row's own day.
 */

/**
 * The CTE `new_subs` (t, n). A day whose two midnights have the same whole-hour offset k spans
 * exactly the 24 hours of its date at k, so its count is its row at (k, date): each offset the
 * window's days use (one, or two across DST) is read once, over the range of its days, by the
 * key. The DST days (23 or 25 hours) are no date at any one offset: they count the subscriptions
 * created between their midnights, by the index on (organization, created_at) that holds the
 * scheduled end, as the per-request read does.
 */
export function newSubscriptionsFromDayRollups({ orgs }: FamilyScope) {
  return [
    seriesDays("new_sub_days"),
    sql`new_sub_rows AS (
      SELECT o.utc_offset, r.day, r.n
      FROM (SELECT utc_offset, min(day) AS lo, max(day) AS hi FROM new_sub_days WHERE whole GROUP BY 1) o CROSS JOIN LATERAL (
        SELECT r.day, sum(r.created) AS n FROM metric_subscription_new_day_rollups r
        WHERE r.organization_id = ANY(${orgs}) AND r.utc_offset = o.utc_offset AND r.day BETWEEN o.lo AND o.hi
        GROUP BY 1
      ) r
    )`,
    sql`new_subs AS (
      SELECT p.t, r.n FROM new_sub_days p JOIN new_sub_rows r USING (utc_offset, day) WHERE p.whole
      UNION ALL
      SELECT p.t, (
        SELECT count(*) FROM subscriptions s
        WHERE s.organization_id = ANY(${orgs}) AND s.created_at >= p.t AND s.created_at < p.t + interval '1 day'
          AND date_trunc('day', s.ends_at) IS DISTINCT FROM p.t
      )
      FROM new_sub_days p
      WHERE NOT p.whole
    )`,
  ];
}
