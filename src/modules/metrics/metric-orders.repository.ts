import { sql } from "kysely";
import { num, type Family, type FamilyScope } from "./metric-families.repository.ts";
import { orderRollupCtes } from "./metric-rollups.repository.ts";

/**
 * Flow: settled orders at their creation. Net is less the fee and every refund and withheld
 * dispute of the order, at the order's own period (so a refund rewrites the past, as the hosted service does).
 * From the order rollups (`fromRollups`) where those answer exactly, else from the orders.
 */
export function ordersFamily(scope: FamilyScope, fromRollups: boolean): Family {
  const { orgs, currency, interval, step, trunc, inBounds, productMatch, customerMatch } = scope;
  return {
    ctes: fromRollups
      ? orderRollupCtes({ orgs, currency, interval, step, trunc, productMatch })
      : [
          sql`order_rows AS (
        SELECT o.created_at, o.subscription_id, o.currency = ${currency} AS priced, o.net_amount AS amount,
          o.net_amount
            - CASE WHEN o.platform_fee_currency IS NULL OR o.platform_fee_currency = o.currency THEN o.platform_fee_amount ELSE 0 END
            - coalesce((SELECT sum(rf.amount) FROM refunds rf WHERE rf.order_id = o.id AND rf.status = 'succeeded'), 0)
            - coalesce((SELECT sum(d.amount) FROM disputes d WHERE d.order_id = o.id AND d.status IN ('needs_response', 'under_review', 'lost')), 0)
            AS net,
          o.subscription_id IS NOT NULL AND ${trunc(sql`s.started_at`)} IS NOT DISTINCT FROM ${trunc(sql`o.created_at`)} AS new_subscription
        FROM orders o LEFT JOIN subscriptions s ON s.id = o.subscription_id
        WHERE o.organization_id = ANY(${orgs}) AND o.status IN ('paid', 'refunded', 'partially_refunded') AND o.created_at < (SELECT hi FROM bounds)
          AND ${productMatch(sql`o.product_id`)} AND ${customerMatch(sql`o.customer_id`)}
      )`,
          sql`order_sums AS (
        SELECT ${trunc(sql`created_at`)} AS t,
          count(*) AS orders,
          count(*) FILTER (WHERE priced) AS priced_orders,
          sum(amount) FILTER (WHERE priced) AS revenue,
          sum(net) FILTER (WHERE priced) AS net,
          count(*) FILTER (WHERE subscription_id IS NULL) AS one_time,
          sum(amount) FILTER (WHERE priced AND subscription_id IS NULL) AS one_time_revenue,
          sum(net) FILTER (WHERE priced AND subscription_id IS NULL) AS one_time_net,
          sum(amount) FILTER (WHERE priced AND new_subscription) AS new_revenue,
          sum(net) FILTER (WHERE priced AND new_subscription) AS new_net,
          count(DISTINCT subscription_id) FILTER (WHERE subscription_id IS NOT NULL AND NOT new_subscription) AS renewed,
          sum(amount) FILTER (WHERE priced AND subscription_id IS NOT NULL AND NOT new_subscription) AS renewed_revenue,
          sum(net) FILTER (WHERE priced AND subscription_id IS NOT NULL AND NOT new_subscription) AS renewed_net
        FROM order_rows WHERE ${inBounds(sql`created_at`)} GROUP BY 1
      )`,
          sql`orders_before AS (
        SELECT coalesce(sum(amount) FILTER (WHERE priced), 0) AS revenue, coalesce(sum(net) FILTER (WHERE priced), 0) AS net
        FROM order_rows WHERE created_at < (SELECT lo FROM bounds)
      )`,
        ],
    join: "order_sums",
    columns: [
      num(sql`order_sums.orders`, "orders"),
      num(sql`order_sums.priced_orders`, "priced_orders"),
      num(sql`order_sums.revenue`, "revenue"),
      num(sql`order_sums.net`, "net_revenue"),
      num(sql`order_sums.one_time`, "one_time_products"),
      num(sql`order_sums.one_time_revenue`, "one_time_products_revenue"),
      num(sql`order_sums.one_time_net`, "one_time_products_net_revenue"),
      num(sql`order_sums.new_revenue`, "new_subscriptions_revenue"),
      num(sql`order_sums.new_net`, "new_subscriptions_net_revenue"),
      num(sql`order_sums.renewed`, "renewed_subscriptions"),
      num(sql`order_sums.renewed_revenue`, "renewed_subscriptions_revenue"),
      num(sql`order_sums.renewed_net`, "renewed_subscriptions_net_revenue"),
      num(sql`(SELECT revenue FROM orders_before)`, "revenue_before"),
      num(sql`(SELECT net FROM orders_before)`, "net_revenue_before"),
    ],
  };
}
