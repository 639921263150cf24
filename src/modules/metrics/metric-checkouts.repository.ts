import { sql } from "kysely";
import { num, type Family, type FamilyScope } from "./metric-families.repository.ts";

/** The migration that began recording a checkout's first view: checkouts made before it count by creation. */
const OPENED_AT_MIGRATION = "2026-11-29T0505_checkout_opened_at";

/** Flow: checkouts at their first view; those made before views were recorded, at their creation. */
export function checkoutsFamily({ orgs, trunc, inBounds, customerMatch, productScope }: FamilyScope): Family {
  return {
    ctes: [
      sql`checkout_rows AS (
        SELECT coalesce(c.opened_at, c.created_at) AS at, c.status
        FROM checkouts c
        WHERE c.organization_id = ANY(${orgs}) AND ${customerMatch(sql`c.customer_id`)}
          AND (c.opened_at IS NOT NULL OR c.created_at < coalesce(
            (SELECT m.timestamp::timestamptz FROM kysely_migration m WHERE m.name = ${OPENED_AT_MIGRATION}), '-infinity'))
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
