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
      -- The condition inside the lateral read, not in its ON: a one-time filter, so an exclusive
      -- row reads none of its orders (in ON it only discarded what they gave, read anyway).
      LEFT JOIN LATERAL (
        SELECT o.tax_rate_basis_points FROM orders o
        WHERE s.tax_behavior = 'inclusive' AND o.subscription_id = s.id AND o.tax_rate_basis_points IS NOT NULL
          AND o.status IN ('paid', 'refunded', 'partially_refunded')
        ORDER BY o.created_at DESC, o.id DESC LIMIT 1
      ) o ON true
    ) net
    WHERE s.organization_id = ANY(${orgs}) AND ${productMatch(sql`s.product_id`)} AND ${customerMatch(sql`s.customer_id`)}
  )`;
}

export function subscriptionFamilies(scope: FamilyScope): Record<SubscriptionFamily, Family> {
  const { currency, trunc, inBounds, interval } = scope;
  return {
    // Stock: the rows alive at the end of each period (started by it, not ended by it), any status.
    // Read as running sums of each row's starts and ends at their periods, one sort of the rows,
    // not the rows joined to every period (docs/decisions.md, "Metrics: subscription stock as running sums").
    subscriptions: {
      ctes: [
        // Each row's periods: start (none: always), end (none: never) and trial end; a trial ending
        // before the next period start is over in the period it ends in, as is any trial_end < t + step.
        sql`sub_periods AS (
          SELECT r.customer_id, r.end_at IS NULL AS open,
            CASE WHEN r.currency = ${currency} THEN coalesce(r.monthly, 0) ELSE 0 END AS m,
            r.currency = ${currency} AS priced, r.trial_end IS NOT NULL AS trial,
            coalesce(${trunc(sql`r.started_at`)}, '-infinity') AS ps, ${trunc(sql`r.end_at`)} AS pe, ${trunc(sql`r.trial_end`)} AS pt
          FROM sub_rows r
        )`,
        // What each row adds at the start of a span it counts in and takes away at its end: alive
        // [start, end), billing [later of start and trial end, end), in trial [start, earlier of trial end and end).
        sql`sub_stock_events AS (
          SELECT e.* FROM sub_periods p CROSS JOIN LATERAL (VALUES
            (p.ps, 1, p.open::int, 0::numeric, 0::numeric, CASE WHEN p.trial THEN p.m ELSE 0 END, CASE WHEN p.trial AND p.open THEN p.m ELSE 0 END),
            (greatest(p.ps, p.pt), 0, 0, p.m, CASE WHEN p.open THEN p.m ELSE 0 END, 0, 0),
            (CASE WHEN NOT p.open THEN greatest(p.ps, p.pe) END, -1, 0, 0, 0, 0, 0),
            (CASE WHEN NOT p.open THEN greatest(p.ps, p.pt, p.pe) END, 0, 0, -p.m, 0, 0, 0),
            (CASE WHEN p.trial THEN greatest(p.ps, least(p.pt, p.pe)) END, 0, 0, 0, 0, -p.m, CASE WHEN p.open THEN -p.m ELSE 0 END)
          ) e(ts, active, committed, mrr, cmrr, trial_mrr, trial_cmrr)
          WHERE e.ts IS NOT NULL AND e.ts <= (SELECT max(t) FROM series)
        )`,
        // A customer counts while any of its rows in the currency is alive: +1 where its alive rows
        // go from none to some, -1 where they go back to none.
        sql`sub_customer_events AS (
          SELECT ts, CASE WHEN level > 0 AND level = d THEN 1 WHEN level = 0 AND d < 0 THEN -1 ELSE 0 END AS customers
          FROM (
            SELECT ts, d, sum(d) OVER (PARTITION BY customer_id ORDER BY ts) AS level
            FROM (
              SELECT p.customer_id, e.ts, sum(e.d) AS d
              FROM sub_periods p CROSS JOIN LATERAL (VALUES (p.ps, 1), (CASE WHEN NOT p.open THEN greatest(p.ps, p.pe) END, -1)) e(ts, d)
              WHERE p.priced AND e.ts IS NOT NULL AND e.ts <= (SELECT max(t) FROM series)
              GROUP BY 1, 2
            ) g
          ) c
        )`,
        // The sums of everything at or before each period start (events sort before the period at one instant).
        sql`subs AS (
          SELECT ts AS t, active, committed, mrr, cmrr, trial_mrr, trial_cmrr, customers FROM (
            SELECT ts, point,
              sum(active) OVER w AS active, sum(committed) OVER w AS committed, sum(mrr) OVER w AS mrr, sum(cmrr) OVER w AS cmrr,
              sum(trial_mrr) OVER w AS trial_mrr, sum(trial_cmrr) OVER w AS trial_cmrr, sum(customers) OVER w AS customers
            FROM (
              SELECT ts, false AS point, active, committed, mrr, cmrr, trial_mrr, trial_cmrr, 0 AS customers FROM sub_stock_events
              UNION ALL SELECT ts, false, 0, 0, 0, 0, 0, 0, customers FROM sub_customer_events
              UNION ALL SELECT t, true, 0, 0, 0, 0, 0, 0, 0 FROM series
            ) u
            WINDOW w AS (ORDER BY ts, point)
          ) s
          WHERE point
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
    // Cancellation requests in a trailing 30 days (a year ahead for years) over the rows alive at its start,
    // as running counts at each window's bounds: started by it (less those ended by it too) and canceled before it.
    churn_rate: {
      ctes: [
        sql`churn_windows AS (
          SELECT se.t, ${interval === "year" ? sql`se.t` : sql`se.t - interval '30 days'`} AS ws,
                 ${interval === "year" ? sql`se.t + interval '1 year'` : sql`se.t`} AS we
          FROM series se
        )`,
        // At one instant: starts and ends count at a bound (started_at <= ws, end_at > ws), cancellations after it (canceled_at < we).
        sql`churn_counts AS (
          SELECT DISTINCT ts, base, canceled FROM (
            SELECT ts, kind, sum(base) OVER w AS base, sum(canceled) OVER w AS canceled
            FROM (
              SELECT started_at AS ts, 0 AS kind, 1 AS base, 0 AS canceled FROM sub_rows WHERE started_at IS NOT NULL
              UNION ALL SELECT greatest(started_at, end_at), 0, -1, 0 FROM sub_rows WHERE started_at IS NOT NULL AND end_at IS NOT NULL
              UNION ALL SELECT canceled_at, 2, 0, 1 FROM sub_rows WHERE canceled_at IS NOT NULL
              UNION ALL SELECT ws, 1, 0, 0 FROM churn_windows
              UNION ALL SELECT we, 1, 0, 0 FROM churn_windows
            ) u
            WINDOW w AS (ORDER BY ts, kind)
          ) c
          WHERE kind = 1
        )`,
        sql`churn AS (
          SELECT w.t, e.canceled - s.canceled AS canceled, s.base
          FROM churn_windows w JOIN churn_counts s ON s.ts = w.ws JOIN churn_counts e ON e.ts = w.we
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
