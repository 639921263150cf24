import { sql, type RawBuilder } from "kysely";
import type { CancellationReason } from "../subscriptions/subscriptions.table.ts";
import { newSubscriptionsFromDayRollups } from "./metric-new-subscriptions.repository.ts";
import { num, type Family, type FamilyScope, type MetricFamily } from "./metric-families.repository.ts";

/**
 * The subscription families of the metrics statement (stock, churn, cancellations, new
 * subscriptions), read from the subscriptions per request through one `sub_rows` CTE.
 */
export type SubscriptionFamily = Extract<MetricFamily, "subscriptions" | "churned" | "churn_rate" | "canceled" | "new_subscriptions">;

/** The cancellation reasons, each a `canceled_subscriptions_<reason>` metric. */
export const CANCELLATION_REASONS: readonly CancellationReason[] = [
  "customer_service",
  "low_quality",
  "missing_features",
  "switched_service",
  "too_complex",
  "too_expensive",
  "unused",
  "other",
];

/** The rows of a subscription view the filters allow (organization, product, customer). */
const scoped = ({ orgs, productMatch, customerMatch }: FamilyScope, alias: string) =>
  sql`${sql.ref(`${alias}.organization_id`)} = ANY(${orgs}) AND ${productMatch(sql.ref(`${alias}.product_id`))} AND ${customerMatch(sql.ref(`${alias}.customer_id`))}`;

/**
 * The subscriptions the filters allow, with their end and their monthly amount net of tax: every
 * subscription family reads them. The view (migrations/2026-12-03T0100_metric_subscription_day_rollups.ts)
 * is the definition the subscription day rollups' facts read too.
 */
export function subscriptionRows(scope: FamilyScope) {
  return sql`sub_rows AS (SELECT s.* FROM metric_subscription_rows s WHERE ${scoped(scope, "s")})`;
}

/**
 * The stock at the end of each period as running sums of the rows' events (the view
 * metric_subscription_stock_events) truncated to the request's periods: exact for every interval and zone.
 */
function stockFromEvents(scope: FamilyScope) {
  const { currency, trunc } = scope;
  const priced = (column: string) => sql`CASE WHEN e.currency = ${currency} THEN ${sql.ref(`e.${column}`)} ELSE 0 END`;
  return [
    sql`sub_stock_events AS (
      SELECT e.customer_id, e.currency = ${currency} AS priced, ${trunc(sql`e.at`)} AS ts, e.active, e.committed,
        ${priced("mrr")} AS mrr, ${priced("cmrr")} AS cmrr, ${priced("trial_mrr")} AS trial_mrr, ${priced("trial_cmrr")} AS trial_cmrr
      FROM metric_subscription_stock_events e
      WHERE ${scoped(scope, "e")} AND ${trunc(sql`e.at`)} <= (SELECT max(t) FROM series)
    )`,
    // A customer counts while any of its rows in the currency is alive: +1 where its alive rows
    // go from none to some, -1 where they go back to none.
    sql`sub_customer_events AS (
      SELECT ts, CASE WHEN level > 0 AND level = d THEN 1 WHEN level = 0 AND d < 0 THEN -1 ELSE 0 END AS customers
      FROM (
        SELECT ts, d, sum(d) OVER (PARTITION BY customer_id ORDER BY ts) AS level
        FROM (SELECT customer_id, ts, sum(active) AS d FROM sub_stock_events WHERE priced AND active <> 0 GROUP BY 1, 2) g
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
  ];
}

/**
 * `name` (t, the columns' aliases): for each point (t, utc_offset, day) of the CTE `points`, the
 * sums of the organizations' subscription day rollup rows at that offset up to that day
 * (docs/decisions.md, "Metrics: subscription day rollups"). Each offset is read once by its key,
 * its rows before the first point folded into one baseline row, then summed by one window per offset.
 */
function rollupSumsAt(
  orgs: RawBuilder<unknown>,
  name: string,
  points: string,
  columns: readonly (readonly [string, RawBuilder<unknown>])[],
) {
  const aliases = sql.join(columns.map(([alias]) => sql.ref(alias)));
  return [
    sql`${sql.table(`${name}_rows`)} AS (
      SELECT o.utc_offset, r.*
      FROM (SELECT DISTINCT utc_offset FROM ${sql.table(points)}) o CROSS JOIN LATERAL (
        SELECT greatest(r.day, (SELECT min(day) - 1 FROM ${sql.table(points)})) AS day,
          ${sql.join(columns.map(([alias, sum]) => sql`${sum} AS ${sql.ref(alias)}`))}
        FROM metric_subscription_day_rollups r
        WHERE r.organization_id = ANY(${orgs}) AND r.utc_offset = o.utc_offset AND r.day <= (SELECT max(day) FROM ${sql.table(points)})
        GROUP BY 1
      ) r
    )`,
    sql`${sql.table(name)} AS (
      SELECT t, ${aliases} FROM (
        SELECT t, point, ${sql.join(columns.map(([alias]) => sql`sum(${sql.ref(alias)}) OVER w AS ${sql.ref(alias)}`))}
        FROM (
          SELECT utc_offset, day, NULL::timestamptz AS t, false AS point, ${aliases} FROM ${sql.table(`${name}_rows`)}
          UNION ALL SELECT utc_offset, day, t, true, ${sql.join(columns.map(() => sql`0`))} FROM ${sql.table(points)}
        ) u
        WINDOW w AS (PARTITION BY utc_offset ORDER BY day, point)
      ) s
      WHERE point
    )`,
  ];
}

/**
 * `name` (t, day, utc_offset): the distinct local midnights `instants` (a query of one column) gives,
 * each with the day and offset whose rollup rows up to that day hold the events before it.
 */
const midnights = (name: string, instants: RawBuilder<unknown>) =>
  sql`${sql.table(name)} AS (
    SELECT DISTINCT b AS t, b::date - 1 AS day, extract(timezone FROM b)::int / 3600 AS utc_offset FROM (${instants}) v(b)
  )`;

/**
 * `name` (t, the columns' aliases): each period's flow from the day rollups, the counts before the
 * midnight ending it less those before the one starting it, each at its own offset (DST days too).
 * The bounds are clipped to the window's (`bounds`), as the flows count only inside it: the first
 * week, month or year of a series begins before the start date, the last may end after the end date.
 */
function flowFromDayRollups({ orgs, step }: FamilyScope, name: string, columns: readonly (readonly [string, RawBuilder<unknown>])[]) {
  return [
    sql`${sql.table(`${name}_periods`)} AS (
      SELECT se.t, greatest(se.t, b.lo) AS lo, least(se.t + ${step}, b.hi) AS hi FROM series se, bounds b
    )`,
    midnights(`${name}_bounds`, sql`SELECT b FROM ${sql.table(`${name}_periods`)}, LATERAL (VALUES (lo), (hi)) v(b)`),
    ...rollupSumsAt(orgs, `${name}_counts`, `${name}_bounds`, columns),
    sql`${sql.table(name)} AS (
      SELECT p.t, ${sql.join(columns.map(([alias]) => sql`${sql.ref(`e.${alias}`)} - ${sql.ref(`s.${alias}`)} AS ${sql.ref(alias)}`))}
      FROM ${sql.table(`${name}_periods`)} p
        JOIN ${sql.table(`${name}_counts`)} s ON s.t = p.lo JOIN ${sql.table(`${name}_counts`)} e ON e.t = p.hi
    )`,
  ];
}

/**
 * The stock from the day rollups: a period's value is every event before the midnight ending it
 * (a day's, a week's, a month's or a year's), which are the rows up to the day before that midnight
 * at its offset, whatever the offsets inside the period.
 */
function stockFromDayRollups({ orgs, currency, step }: FamilyScope) {
  const priced = (column: string) => sql`sum(${sql.ref(`r.${column}`)}) FILTER (WHERE r.currency = ${currency})`;
  return [
    sql`sub_day_points AS (
      SELECT t, (t + ${step})::date - 1 AS day, extract(timezone FROM t + ${step})::int / 3600 AS utc_offset FROM series
    )`,
    ...rollupSumsAt(orgs, "subs", "sub_day_points", [
      ["active", sql`sum(r.active)`],
      ["committed", sql`sum(r.committed)`],
      ...(["mrr", "cmrr", "trial_mrr", "trial_cmrr", "customers"] as const).map((column) => [column, priced(column)] as const),
    ]),
  ];
}

/**
 * The families; `fromRollups`: the stock, the churn windows, the churned and the canceled from the day rollups, which answer
 * days, weeks, months and years (every bound a local midnight) in whole-hour zones without a product, billing type or
 * customer filter (the rollups have none of those); the new from their per-day rows, likewise.
 */
export function subscriptionFamilies(scope: FamilyScope, fromRollups: boolean): Record<SubscriptionFamily, Family> {
  const { trunc, inBounds, interval, orgs } = scope;
  return {
    // Stock: the rows alive at the end of each period (started by it, not ended by it), any status.
    // Read as running sums of each row's starts and ends at their periods, one sort of the rows,
    // not the rows joined to every period (docs/decisions.md, "Metrics: subscription stock as running sums").
    subscriptions: {
      ctes: fromRollups ? stockFromDayRollups(scope) : stockFromEvents(scope),
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
      ctes: fromRollups
        ? flowFromDayRollups(scope, "churned", [["n", sql`sum(r.churned)`]])
        : [sql`churned AS (SELECT ${trunc(sql`end_at`)} AS t, count(*) AS n FROM sub_rows WHERE ${inBounds(sql`end_at`)} GROUP BY 1)`],
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
        ...(fromRollups
          ? [
              // Each bound is a local midnight: the counts before it are the rows up to the day
              // before it at its offset (the rollups hold "at or before" a microsecond earlier).
              midnights("churn_bounds", sql`SELECT b FROM churn_windows, LATERAL (VALUES (ws), (we)) v(b)`),
              ...rollupSumsAt(orgs, "churn_counts", "churn_bounds", [
                ["base", sql`sum(r.churn_base)`],
                ["canceled", sql`sum(r.churn_canceled)`],
              ]),
            ]
          : [
              // At one instant: starts and ends count at a bound (started_at <= ws, end_at > ws), cancellations after it (canceled_at < we).
              sql`churn_counts AS (
                SELECT DISTINCT ts AS t, base, canceled FROM (
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
            ]),
        sql`churn AS (
          SELECT w.t, e.canceled - s.canceled AS canceled, s.base
          FROM churn_windows w JOIN churn_counts s ON s.t = w.ws JOIN churn_counts e ON e.t = w.we
        )`,
      ],
      join: "churn",
      columns: [num(sql`churn.canceled`, "churn_canceled"), num(sql`churn.base`, "churn_base")],
    },
    // Flow: cancellation requests still standing (an uncancel clears canceled_at), at the request's period.
    // From the rollups: the cancellations are the churn windows' counts (at canceled_at), each reason a column.
    canceled: {
      ctes: fromRollups
        ? flowFromDayRollups(scope, "canceled", [
            ["n", sql`sum(r.churn_canceled)`],
            ...CANCELLATION_REASONS.map((reason) => [reason, sql`sum(${sql.ref(`r.canceled_${reason}`)})`] as const),
          ])
        : [
            sql`canceled AS (
              SELECT ${trunc(sql`canceled_at`)} AS t, count(*) AS n,
                ${sql.join(CANCELLATION_REASONS.map((reason) => sql`count(*) FILTER (WHERE reason = ${reason}) AS ${sql.ref(reason)}`))}
              FROM sub_rows WHERE ${inBounds(sql`canceled_at`)} GROUP BY 1
            )`,
          ],
      join: "canceled",
      columns: [
        num(sql`canceled.n`, "canceled_subscriptions"),
        ...CANCELLATION_REASONS.map((reason) => num(sql.ref(`canceled.${reason}`), `canceled_subscriptions_${reason}`)),
      ],
    },
    // Flow: subscriptions created in a period, less those whose scheduled end falls in the same period.
    new_subscriptions: {
      ctes:
        fromRollups && interval !== "hour"
          ? newSubscriptionsFromDayRollups(scope)
          : [
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
