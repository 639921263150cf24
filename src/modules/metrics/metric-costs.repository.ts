import { sql } from "kysely";
import { num, type Family, type FamilyScope } from "./metric-families.repository.ts";

/** Flow: the cost of ingested user events (`_cost`, in cents) in the currency, and their distinct customers. */
export function costsFamily({ orgs, currency, trunc, inBounds, filter }: FamilyScope): Family {
  return {
    ctes: [
      sql`cost_rows AS (
        SELECT e."timestamp", e.customer_id, e.external_customer_id,
          CASE WHEN e.metadata->'_cost'->>'currency' = ${currency} THEN (e.metadata->'_cost'->>'amount')::numeric END AS cost
        FROM events e
        WHERE e.organization_id = ANY(${orgs}) AND e.source = 'user'
          -- Before the window only costs matter (the lifetime baseline); inside it every event names an active user.
          AND (e."timestamp" >= (SELECT lo FROM bounds) OR e.metadata ? '_cost') AND e."timestamp" < (SELECT hi FROM bounds)
          ${
            filter.customerIds === null
              ? sql``
              : sql`AND (e.customer_id = ANY(${filter.customerIds}::uuid[]) OR e.external_customer_id IN (
                  SELECT cu.external_id FROM customers cu WHERE cu.id = ANY(${filter.customerIds}::uuid[]) AND cu.external_id IS NOT NULL))`
          }
      )`,
      sql`cost_sums AS (
        SELECT ${trunc(sql`"timestamp"`)} AS t, sum(cost) AS costs,
          count(DISTINCT customer_id) + count(DISTINCT external_customer_id) AS users
        FROM cost_rows WHERE ${inBounds(sql`"timestamp"`)} GROUP BY 1
      )`,
      sql`costs_before AS (SELECT coalesce(sum(cost), 0) AS costs FROM cost_rows WHERE "timestamp" < (SELECT lo FROM bounds))`,
    ],
    join: "cost_sums",
    columns: [
      num(sql`cost_sums.costs`, "costs"),
      num(sql`cost_sums.users`, "active_user_by_event"),
      num(sql`(SELECT costs FROM costs_before)`, "costs_before"),
    ],
  };
}
