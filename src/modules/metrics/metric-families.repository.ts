import { sql, type RawBuilder } from "kysely";
import type { TimeInterval } from "../../schema/time-intervals.ts";

/** The query families of the metrics statement (metrics.repository.ts), one CTE group each. */
export type MetricFamily = "subscriptions" | "churned" | "churn_rate" | "canceled" | "checkouts" | "orders" | "new_subscriptions" | "costs";

export interface MetricsFilter {
  organizationIds: readonly string[];
  productIds: readonly string[] | null;
  billingTypes: readonly ("one_time" | "recurring")[] | null;
  customerIds: readonly string[] | null;
  /** The one currency money metrics are in; rows in others count in counts only. */
  currency: string;
}

export interface Family {
  /** CTEs (`name AS (...)`), in dependency order. */
  ctes: RawBuilder<unknown>[];
  /** Joined to the series on `t` (the period start); null when the family's columns are correlated per period. */
  join: string | null;
  columns: RawBuilder<unknown>[];
}

/** What every family's SQL reads of the request: the statement defines `bounds` (lo, hi) and `series` (t). */
export interface FamilyScope {
  filter: MetricsFilter;
  interval: TimeInterval;
  currency: string;
  orgs: RawBuilder<unknown>;
  /** One period, as an interval. */
  step: RawBuilder<unknown>;
  /** The local period start of a timestamp (the statement runs in the requested zone). */
  trunc: (expression: RawBuilder<unknown>) => RawBuilder<unknown>;
  /** The products the product and billing type filters allow, as a subquery; null when neither is given. */
  productScope: RawBuilder<unknown> | null;
  productMatch: (column: RawBuilder<unknown>) => RawBuilder<unknown>;
  customerMatch: (column: RawBuilder<unknown>) => RawBuilder<unknown>;
  /** Inside the requested window (flows count only there). */
  inBounds: (column: RawBuilder<unknown>) => RawBuilder<unknown>;
}

/** A family's output column: a number, 0 when its period had no row. */
export const num = (expression: RawBuilder<unknown>, alias: string) => sql`coalesce(${expression}, 0)::float8 AS ${sql.ref(alias)}`;

/**
 * The CTE `name` (t, day, utc_offset, whole): each period of a by-day series with its local date
 * and its UTC offset in hours; `whole` when the day's two midnights share one whole-hour offset the
 * day rollups hold (−12 to +14), so the day is exactly its date at that offset (a DST day is not).
 */
export const seriesDays = (name: string) =>
  sql`${sql.table(name)} AS (
    SELECT t, t::date AS day, extract(timezone FROM t)::int / 3600 AS utc_offset,
      extract(timezone FROM t) = extract(timezone FROM t + interval '1 day') AND extract(timezone FROM t)::int % 3600 = 0
        AND extract(timezone FROM t)::int BETWEEN -43200 AND 50400 AS whole
    FROM series
  )`;

/** A date's midnight at `a` whole hours east of UTC (the day rollups' offsets), as an instant. */
export const midnightAt = (day: RawBuilder<unknown>, a: RawBuilder<unknown>) =>
  sql`(((${day})::timestamp - ${a} * interval '1 hour') AT TIME ZONE 'UTC')`;

/** The date of an instant at `a` whole hours east of UTC. */
export const dateAt = (instant: RawBuilder<unknown>, a: RawBuilder<unknown>) =>
  sql`(((${instant}) AT TIME ZONE 'UTC') + ${a} * interval '1 hour')::date`;

/** The whole-hour UTC offset of an instant of the series when the day rollups hold it (−12 to +14), else null. */
export const rollupOffsetOf = (instant: RawBuilder<unknown>) =>
  sql`CASE WHEN extract(timezone FROM ${instant})::int % 3600 = 0 AND extract(timezone FROM ${instant})::int BETWEEN -43200 AND 50400
    THEN extract(timezone FROM ${instant})::int / 3600 END`;
