import { sql, type RawBuilder } from "kysely";
import { num, seriesDays, type Family, type FamilyScope } from "./metric-families.repository.ts";

/**
 * Each day of the series from the checkout rollups (docs/decisions.md, "Metrics: checkout day
 * rollups"): a day whose offset is the same at its start and its end (every day of a whole-hour
 * zone but its DST changes) is the day row at that offset, found by its key; a DST day (23 or 25
 * hours) sums its UTC hours' rows. Both are read per day, so a year reads about 365 rows per slot used.
 */
function fromRollups(orgs: RawBuilder<unknown>) {
  return [
    seriesDays("checkout_days"),
    sql`checkout_counts AS (
      SELECT p.t, c.n, c.succeeded
      FROM checkout_days p CROSS JOIN LATERAL (
        SELECT sum(u.checkouts) AS n, sum(u.succeeded) AS succeeded FROM (
          SELECT r.checkouts, r.succeeded FROM metric_checkout_day_rollups r
          WHERE p.whole AND r.organization_id = ANY(${orgs}) AND r.utc_offset = p.utc_offset AND r.day = p.day
          UNION ALL
          SELECT r.checkouts, r.succeeded FROM metric_checkout_hour_rollups r
          WHERE NOT p.whole AND r.organization_id = ANY(${orgs}) AND r.hour >= p.t AND r.hour < p.t + interval '1 day'
        ) u
      ) c
    )`,
  ];
}

/**
 * Flow: checkouts at their first view; those made before views were recorded, at their creation
 * (the view metric_checkout_rows, migrations/2026-12-04T0400_metric_checkout_rollups.ts). From the
 * rollups (`rollups`) for days in a whole-hour zone without a product, billing type or customer
 * filter (the rollups have none of those), else from the checkouts.
 */
export function checkoutsFamily(scope: FamilyScope, rollups: boolean): Family {
  const { orgs, trunc, inBounds, customerMatch, productScope } = scope;
  return {
    ctes: rollups
      ? fromRollups(orgs)
      : [
          sql`checkout_rows AS (
            SELECT c.at, c.status FROM metric_checkout_rows c
            WHERE c.organization_id = ANY(${orgs}) AND ${customerMatch(sql`c.customer_id`)}
              ${productScope === null ? sql`` : sql`AND EXISTS (SELECT 1 FROM checkout_products cp WHERE cp.checkout_id = c.id AND cp.product_id IN ${productScope})`}
          )`,
          sql`checkout_counts AS (
            SELECT ${trunc(sql`at`)} AS t, count(*) AS n, count(*) FILTER (WHERE status = 'succeeded') AS succeeded
            FROM checkout_rows WHERE ${inBounds(sql`at`)} GROUP BY 1
          )`,
        ],
    join: "checkout_counts",
    columns: [num(sql`checkout_counts.n`, "checkouts"), num(sql`checkout_counts.succeeded`, "succeeded_checkouts")],
  };
}
