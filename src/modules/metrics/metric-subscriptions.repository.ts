import { sql } from "kysely";
import type { CancellationReason } from "../subscriptions/subscriptions.table.ts";
import { num, type Family, type FamilyScope, type MetricFamily } from "./metric-families.repository.ts";

/**
 * The subscription families of the metrics statement (stock, churn, cancellations, new
 * subscriptions), read from the subscriptions per request through one `sub_rows` CTE.
 */
export type SubscriptionFamily = Extract<MetricFamily, "subscriptions" | "churned" | "churn_rate" | "canceled" | "new_subscriptions">;

const REASONS: readonly Exclude<CancellationReason, "other">[] = [
  "customer_service",
  "low_quality",
  "missing_features",
  "switched_service",
  "too_complex",
  "too_expensive",
  "unused",
];

/** The subscriptions the filters allow, with their end and their monthly amount net of tax: every subscription family reads them. */
export function subscriptionRows({ orgs, productMatch, customerMatch }: FamilyScope) {
  return sql`sub_rows AS (
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
}

export function subscriptionFamilies(scope: FamilyScope): Record<SubscriptionFamily, Family> {
  const { currency, step, trunc, inBounds, interval } = scope;
  return {
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
  };
}
