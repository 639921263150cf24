import { sql, type RawBuilder } from "kysely";
import type { Db } from "../../db/database.ts";
import type { TimeInterval } from "../../schema/time-intervals.ts";
import type { CancellationReason } from "../subscriptions/subscriptions.table.ts";
import { orderRollupCtes } from "./metric-rollups.repository.ts";

/**
 * The source rows of the metrics, read in one statement per request (anchor-behaviour-wave3.md
 * §1.1), the orders from their rollups where those answer exactly: a series of local period starts joined to one CTE per query family the requested metrics
 * need. The statement runs with the session time zone set to the requested one, so `date_trunc`
 * and the series' steps are local and DST-aware.
 */
export type MetricFamily = "subscriptions" | "churned" | "churn_rate" | "canceled" | "checkouts" | "orders" | "new_subscriptions" | "costs";

export interface MetricsFilter {
  organizationIds: readonly string[];
  productIds: readonly string[] | null;
  billingTypes: readonly ("one_time" | "recurring")[] | null;
  customerIds: readonly string[] | null;
  /** The one currency money metrics are in; rows in others count in counts only. */
  currency: string;
}

export interface MetricsSourceRequest {
  /** Plain dates (`YYYY-MM-DD`), both included, in `timezone`. */
  startDate: string;
  endDate: string;
  interval: TimeInterval;
  timezone: string;
  families: ReadonlySet<MetricFamily>;
  filter: MetricsFilter;
  /** Orders from the hourly rollups (metric-rollups.repository.ts) rather than the orders themselves. */
  ordersFromRollups: boolean;
}

/** One period's source values (absent: the family was not read), and its local start with its offset. */
export interface SourcePeriod {
  timestamp: string;
  values: Record<string, number>;
}

const STEP: Record<TimeInterval, string> = { hour: "1 hour", day: "1 day", week: "1 week", month: "1 month", year: "1 year" };

const REASONS: readonly Exclude<CancellationReason, "other">[] = [
  "customer_service",
  "low_quality",
  "missing_features",
  "switched_service",
  "too_complex",
  "too_expensive",
  "unused",
];

/** The migration that began recording a checkout's first view: checkouts made before it count by creation. */
const OPENED_AT_MIGRATION = "2026-11-29T0505_checkout_opened_at";

interface Family {
  /** CTEs (`name AS (...)`), in dependency order. */
  ctes: RawBuilder<unknown>[];
  /** Joined to the series on `t` (the period start); null when the family's columns are correlated per period. */
  join: string | null;
  columns: RawBuilder<unknown>[];
}

const num = (expression: RawBuilder<unknown>, alias: string) => sql`coalesce(${expression}, 0)::float8 AS ${sql.ref(alias)}`;

export async function metricSources(db: Db, request: MetricsSourceRequest): Promise<SourcePeriod[]> {
  const { filter, interval } = request;
  const iv = sql.lit(interval);
  const step = sql`${STEP[interval]}::interval`;
  const trunc = (expression: RawBuilder<unknown>) => sql`date_trunc(${iv}, ${expression})`;
  const orgs = sql`${filter.organizationIds}::uuid[]`;
  const currency = filter.currency;
  // The products the product and billing type filters allow; null when neither is given.
  const productScope =
    filter.productIds === null && filter.billingTypes === null
      ? null
      : sql`(SELECT p.id FROM products p WHERE p.organization_id = ANY(${orgs})
          ${filter.productIds === null ? sql`` : sql`AND p.id = ANY(${filter.productIds}::uuid[])`}
          ${filter.billingTypes === null ? sql`` : sql`AND (CASE WHEN p.recurring_interval IS NULL THEN 'one_time' ELSE 'recurring' END) = ANY(${filter.billingTypes}::text[])`})`;
  const productMatch = (column: RawBuilder<unknown>) => (productScope === null ? sql`true` : sql`${column} IN ${productScope}`);
  const customerMatch = (column: RawBuilder<unknown>) =>
    filter.customerIds === null ? sql`true` : sql`${column} = ANY(${filter.customerIds}::uuid[])`;
  const inBounds = (column: RawBuilder<unknown>) => sql`${column} >= (SELECT lo FROM bounds) AND ${column} < (SELECT hi FROM bounds)`;

  const subscriptionRows = sql`sub_rows AS (
    SELECT s.id, s.customer_id, s.currency, s.started_at, s.created_at, s.canceled_at, s.trial_end, s.ends_at,
      s.customer_cancellation_reason AS reason, coalesce(s.ended_at, s.ends_at) AS end_at,
      -- What a period bills net of tax, per month (half away from zero, as numeric round does).
      round(CASE s.recurring_interval
        WHEN 'year' THEN net.amount / (12 * s.recurring_interval_count)
        WHEN 'month' THEN net.amount / s.recurring_interval_count
        WHEN 'week' THEN net.amount * 52 / (12 * s.recurring_interval_count)
        ELSE net.amount * 365 / (12 * s.recurring_interval_count) END) AS monthly
    FROM subscriptions s
    -- Inclusive prices hold the tax: less the tax at the rate of the subscription's latest taxed order
    -- (docs/decisions.md, "Metrics: MRR net of inclusive tax"). The rate is a float column: made
    -- numeric, so a tie rounds away from zero as the tax engine's does.
    CROSS JOIN LATERAL (
      SELECT s.amount - CASE WHEN s.tax_behavior = 'inclusive' THEN coalesce(round(s.amount * o.tax_rate_basis_points::numeric / (10000 + o.tax_rate_basis_points::numeric)), 0) ELSE 0 END AS amount
      FROM (SELECT NULL) one
      LEFT JOIN LATERAL (
        SELECT o.tax_rate_basis_points FROM orders o
        WHERE o.subscription_id = s.id AND o.tax_rate_basis_points IS NOT NULL AND o.status IN ('paid', 'refunded', 'partially_refunded')
        ORDER BY o.created_at DESC, o.id DESC LIMIT 1
      ) o ON s.tax_behavior = 'inclusive'
    ) net
    WHERE s.organization_id = ANY(${orgs}) AND ${productMatch(sql`s.product_id`)} AND ${customerMatch(sql`s.customer_id`)}
  )`;

  const families: Record<MetricFamily, Family> = {
    // Stock: the rows alive at the end of each period (started by it, not ended by it), any status.
    subscriptions: {
      ctes: [
        sql`subs AS (
          SELECT se.t,
            count(r.id) AS active,
            count(r.id) FILTER (WHERE r.end_at IS NULL) AS committed,
            sum(r.monthly) FILTER (WHERE r.currency = ${currency} AND (r.trial_end IS NULL OR r.trial_end < se.t + ${step})) AS mrr,
            sum(r.monthly) FILTER (WHERE r.currency = ${currency} AND (r.trial_end IS NULL OR r.trial_end < se.t + ${step}) AND r.end_at IS NULL) AS cmrr,
            sum(r.monthly) FILTER (WHERE r.currency = ${currency} AND r.trial_end >= se.t + ${step}) AS trial_mrr,
            sum(r.monthly) FILTER (WHERE r.currency = ${currency} AND r.trial_end >= se.t + ${step} AND r.end_at IS NULL) AS trial_cmrr,
            count(DISTINCT r.customer_id) FILTER (WHERE r.currency = ${currency}) AS customers
          FROM series se LEFT JOIN sub_rows r
            ON (r.started_at IS NULL OR ${trunc(sql`r.started_at`)} <= se.t) AND (r.end_at IS NULL OR ${trunc(sql`r.end_at`)} > se.t)
          GROUP BY se.t
        )`,
      ],
      join: "subs",
      columns: [
        num(sql`subs.active`, "active_subscriptions"),
        num(sql`subs.committed`, "committed_subscriptions"),
        num(sql`subs.mrr`, "monthly_recurring_revenue"),
        num(sql`subs.cmrr`, "committed_monthly_recurring_revenue"),
        num(sql`subs.trial_mrr`, "trial_monthly_recurring_revenue"),
        num(sql`subs.trial_cmrr`, "trial_committed_monthly_recurring_revenue"),
        num(sql`subs.customers`, "subscription_customers"),
      ],
    },
    // Flow: ends (done or scheduled) inside the bounds, at the period they fall in.
    churned: {
      ctes: [sql`churned AS (SELECT ${trunc(sql`end_at`)} AS t, count(*) AS n FROM sub_rows WHERE ${inBounds(sql`end_at`)} GROUP BY 1)`],
      join: "churned",
      columns: [num(sql`churned.n`, "churned_subscriptions")],
    },
    // Cancellation requests in a trailing 30 days (a year ahead for years) over the rows alive at its start.
    churn_rate: {
      ctes: [
        sql`churn AS (
          SELECT se.t,
            (SELECT count(*) FROM sub_rows r WHERE r.canceled_at >= w.ws AND r.canceled_at < w.we) AS canceled,
            (SELECT count(*) FROM sub_rows r WHERE r.started_at <= w.ws AND (r.end_at IS NULL OR r.end_at > w.ws)) AS base
          FROM series se, LATERAL (
            SELECT ${interval === "year" ? sql`se.t` : sql`se.t - interval '30 days'`} AS ws,
                   ${interval === "year" ? sql`se.t + interval '1 year'` : sql`se.t`} AS we
          ) w
        )`,
      ],
      join: "churn",
      columns: [num(sql`churn.canceled`, "churn_canceled"), num(sql`churn.base`, "churn_base")],
    },
    // Flow: cancellation requests still standing (an uncancel clears canceled_at), at the request's period.
    canceled: {
      ctes: [
        sql`canceled AS (
          SELECT ${trunc(sql`canceled_at`)} AS t, count(*) AS n,
            ${sql.join(
              [...REASONS, "other" as const].map((reason) => sql`count(*) FILTER (WHERE reason = ${reason}) AS ${sql.ref(reason)}`),
            )}
          FROM sub_rows WHERE ${inBounds(sql`canceled_at`)} GROUP BY 1
        )`,
      ],
      join: "canceled",
      columns: [
        num(sql`canceled.n`, "canceled_subscriptions"),
        ...[...REASONS, "other" as const].map((reason) => num(sql.ref(`canceled.${reason}`), `canceled_subscriptions_${reason}`)),
      ],
    },
    // Flow: checkouts at their first view; those made before views were recorded, at their creation.
    checkouts: {
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
    },
    // Flow: settled orders at their creation. Net is less the fee and every refund and withheld
    // dispute of the order, at the order's own period (so a refund rewrites the past, as the hosted service does).
    orders: {
      ctes: request.ordersFromRollups
        ? orderRollupCtes({ orgs, currency, interval, trunc, productMatch })
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
    },
    // Flow: subscriptions created in a period, less those whose scheduled end falls in the same period.
    new_subscriptions: {
      ctes: [
        sql`new_subs AS (
          SELECT ${trunc(sql`created_at`)} AS t, count(*) AS n FROM sub_rows
          WHERE ${inBounds(sql`created_at`)} AND ${trunc(sql`ends_at`)} IS DISTINCT FROM ${trunc(sql`created_at`)}
          GROUP BY 1
        )`,
      ],
      join: "new_subs",
      columns: [num(sql`new_subs.n`, "new_subscriptions")],
    },
    // Flow: the cost of ingested user events (`_cost`, in cents) in the currency, and their distinct customers.
    costs: {
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
    },
  };

  const chosen = [...request.families].map((name) => families[name]);
  const readsSubscriptions = [...request.families].some((name) =>
    ["subscriptions", "churned", "churn_rate", "canceled", "new_subscriptions"].includes(name),
  );
  const ctes = [
    sql`bounds AS (SELECT ${request.startDate}::date::timestamptz AS lo, (${request.endDate}::date + 1)::timestamptz AS hi)`,
    // Local period starts from the start's period (snapped back to its Monday, 1st, 1 January) to the end's.
    sql`series AS (SELECT t FROM bounds, generate_series(${trunc(sql`lo`)}, hi - interval '1 microsecond', ${step}) t)`,
    ...(readsSubscriptions ? [subscriptionRows] : []),
    ...chosen.flatMap((family) => family.ctes),
  ];
  const joins = chosen.flatMap((family) => (family.join === null ? [] : [sql`LEFT JOIN ${sql.table(family.join)} USING (t)`]));
  const columns = chosen.flatMap((family) => family.columns);

  return db.transaction().execute(async (trx) => {
    // Local buckets: date_trunc, the series' steps and to_char's offset all read the session zone.
    await sql`SELECT set_config('TimeZone', ${request.timezone}, true)`.execute(trx);
    const { rows } = await sql<Record<string, number> & { timestamp: string }>`WITH ${sql.join(ctes)}
      SELECT to_char(series.t, 'YYYY-MM-DD"T"HH24:MI:SSTZH:TZM') AS "timestamp"${columns.length > 0 ? sql`, ${sql.join(columns)}` : sql``}
      FROM series ${sql.join(joins, sql` `)}
      ORDER BY series.t`.execute(trx);
    return rows.map(({ timestamp, ...values }) => ({ timestamp, values }));
  });
}

/**
 * The organizations a request covers, with their default currency: those the principal may read
 * (`allowed`, null: all) among those the filter names (null: no filter).
 */
export function metricOrganizations(db: Db, allowed: readonly string[] | null, named: readonly string[] | null) {
  let query = db.selectFrom("organizations").select(["id", "default_presentment_currency"]).orderBy("created_at").orderBy("id");
  if (allowed !== null) query = query.where("id", "in", allowed);
  if (named !== null) query = query.where("id", "in", named);
  return query.execute();
}
