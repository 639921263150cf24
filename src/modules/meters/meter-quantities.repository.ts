import { expressionBuilder, sql, type RawBuilder, type SqlBool } from "kysely";
import type { Database, Executor } from "../../db/database.ts";
import { metadataMatches } from "../../db/list-filters.ts";
import type { MetadataFilter } from "../../schema/pagination.ts";
import { liveCustomerIdOfExternalId } from "../customers/customers.steps.ts";
import { customerKey } from "./meter-aggregates.repository.ts";
import { bucketRows, unaggregatedEvents, type MeterState } from "./meter-bucket-reads.repository.ts";
import { aggregatedValue, compileFilter } from "./meter-filter.repository.ts";
import type { TimeInterval } from "../../schema/time-intervals.ts";
import type { AggregationFunction } from "./meters.schemas.ts";
import { meterDependentReads } from "./meter-dependent-reads.ts";

export interface QuantitiesRequest {
  meter: MeterState;
  start: Date;
  end: Date;
  interval: TimeInterval;
  timezone: string;
  /** Customer keys (`c:<id>`, `e:<external id>`) to keep; null for every customer. */
  customerKeys: readonly string[] | null;
  metadata: MetadataFilter | null;
  customerFunction: AggregationFunction | null;
  /** Keeps only the events of this exact range [from, to) (its edge hours read raw); absent: the points' intervals. */
  within?: { from: Date; to: Date };
}

export interface QuantityRow {
  timestamp: Date;
  quantity: number;
  total: number;
  /** The total as an exact decimal string (no float rounding), for billing. */
  exact_total: string;
}

const STEP: Record<TimeInterval, string> = { hour: "1 hour", day: "1 day", week: "1 week", month: "1 month", year: "1 year" };

/** The meter's function over bucket rows (events, values, sum, min, max) or value rows (value). */
export function meterQuantity(func: AggregationFunction): RawBuilder<number> {
  switch (func) {
    case "count":
      return sql`coalesce(sum(r.events), 0)`;
    case "sum":
      return sql`coalesce(sum(r.sum), 0)`;
    case "max":
      return sql`coalesce(max(r.max), 0)`;
    case "min":
      return sql`coalesce(min(r.min), 0)`;
    case "avg":
      return sql`coalesce(sum(r.sum) / nullif(sum(r."values"), 0), 0)`;
    case "unique":
      return sql`count(DISTINCT r.value)`;
  }
}

/** The per-customer function across customers' quantities `q`. */
function acrossCustomers(func: AggregationFunction): RawBuilder<number> {
  switch (func) {
    case "count":
      return sql`count(*)`;
    case "sum":
      return sql`coalesce(sum(q), 0)`;
    case "max":
      return sql`coalesce(max(q), 0)`;
    case "min":
      return sql`coalesce(min(q), 0)`;
    case "avg":
      return sql`coalesce(avg(q), 0)`;
    case "unique":
      return sql`count(DISTINCT q)`;
  }
}

/**
 * The quantities of a meter, one row per point of the range (with the total on each row), in one
 * statement:
 *
 * - points: start, start + interval, … up to end, in the time zone; each names the interval that
 *   holds it (`date_trunc` in the zone), as the hosted service does.
 * - whole hours: the buckets of hours that lie inside one interval (every hour, in zones whose
 *   offset is whole hours), read from the pre-aggregates;
 * - split hours: an hour an interval boundary cuts (zones with 30- or 45-minute offsets) is read
 *   from the raw events of that hour only, found near each boundary;
 * - the events no bucket holds yet (`unaggregatedEvents`: ingested since the meter's last
 *   aggregation, or before the cut of its pending back-fill) are read raw; with a `metadata` filter
 *   (which no pre-aggregate can answer) every event of the range is read raw.
 */
export async function meterQuantities(db: Executor, request: QuantitiesRequest): Promise<QuantityRow[]> {
  const { meter, timezone: tz, interval } = request;
  const iv = sql.lit(interval);
  const step = sql`${STEP[interval]}::interval`;
  const unique = meter.aggregation.func === "unique";
  const keyOf = (bucket: RawBuilder<unknown>) => sql`date_trunc(${iv}, (${bucket}) AT TIME ZONE ${tz})`;
  const whole = (hour: RawBuilder<unknown>) =>
    sql<SqlBool>`${keyOf(hour)} = ${keyOf(sql`${hour} + interval '1 hour' - interval '1 microsecond'`)}`;
  const keys = request.customerKeys;
  const { numeric, value } = aggregatedValue(meter.aggregation, "e");
  const within = request.within;
  const rawWithin = within ? sql<SqlBool>`e."timestamp" >= ${within.from} AND e."timestamp" < ${within.to}` : sql<SqlBool>`true`;
  const bucketWithin = (table: string) =>
    within
      ? sql<SqlBool>`${sql.ref(`${table}.bucket`)} >= ${within.from} AND ${sql.ref(`${table}.bucket`)} + interval '1 hour' <= ${within.to}`
      : sql<SqlBool>`true`;
  const edgeHours = within
    ? sql`UNION SELECT h FROM (VALUES (${within.from}::timestamptz), (${within.to}::timestamptz)) edges (t), date_trunc('hour', t) h WHERE h <> t`
    : sql``;

  const unaggregated = unaggregatedEvents(meter, "e");
  // The split hours are read on their own (through the timestamp index) but while a back-fill is
  // pending, whose raw events span the range anyway; they leave the unaggregated events to the range.
  const splitApart = request.metadata === null && meter.backfilled_at !== null;
  const rawScope: RawBuilder<SqlBool> =
    request.metadata !== null
      ? sql`true`
      : splitApart
        ? unaggregated
        : sql`(${unaggregated} OR date_trunc('hour', e."timestamp") IN (SELECT h FROM split))`;
  const metadataMatch =
    request.metadata === null ? sql<SqlBool>`true` : metadataMatches(expressionBuilder<Database, never>(), "e.metadata", request.metadata);
  const { eventRows } = meterDependentReads();
  const rawEvents = sql`SELECT e.* FROM ${eventRows} e, span
      WHERE e.organization_id = ${meter.organization_id}::uuid AND e."timestamp" >= span.lo AND e."timestamp" < span.hi AND ${rawScope}
    UNION ALL
    SELECT e.* FROM split JOIN ${eventRows} e ON e.organization_id = ${meter.organization_id}::uuid AND e."timestamp" >= split.h AND e."timestamp" < split.h + interval '1 hour'
      WHERE ${splitApart ? sql`NOT ${unaggregated}` : sql`false`}`;
  const rawFilter = sql<SqlBool>`${compileFilter(meter.filter, "e")} AND ${metadataMatch} AND ${rawWithin} ${keys === null ? sql`` : sql`AND ${customerKey("e")} = ANY(${keys}::text[])`}`;
  const bucketWhere = (table: string) =>
    sql<SqlBool>`${sql.ref(`${table}.meter_id`)} = ${meter.id}::uuid AND ${sql.ref(`${table}.bucket`)} >= span.lo AND ${sql.ref(`${table}.bucket`)} < span.hi
      AND ${whole(sql.ref(`${table}.bucket`))} AND ${bucketWithin(table)} AND ${request.metadata === null ? sql`true` : sql`false`}
      ${keys === null ? sql`` : sql`AND ${sql.ref(`${table}.customer_key`)} = ANY(${keys}::text[])`}`;

  const rows = unique
    ? sql`SELECT b.customer_key, ${keyOf(sql`b.bucket`)} AS k, 0::bigint AS events, 0::bigint AS "values", NULL::numeric AS sum, NULL::numeric AS min, NULL::numeric AS max, b.value
        FROM meter_bucket_values b, span WHERE ${bucketWhere("b")}
      UNION ALL
      SELECT ${customerKey("e")}, ${keyOf(sql`e."timestamp"`)}, 0, 0, NULL, NULL, NULL, ${value}
        FROM raw e WHERE ${rawFilter} AND ${value} IS NOT NULL`
    : sql`SELECT b.customer_key, ${keyOf(sql`b.bucket`)} AS k, b.events, b."values", b.sum, b.min, b.max, NULL::jsonb AS value
        FROM ${bucketRows} b, span WHERE ${bucketWhere("b")}
      UNION ALL
      SELECT ${customerKey("e")}, ${keyOf(sql`e."timestamp"`)}, 1, CASE WHEN ${numeric} IS NULL THEN 0 ELSE 1 END, ${numeric}, ${numeric}, ${numeric}, NULL
        FROM raw e WHERE ${rawFilter}`;

  // A customer named by external id is the customer holding that id now, when there is one.
  const holder = liveCustomerIdOfExternalId(sql<string>`${meter.organization_id}::uuid`, sql<string>`substr(r.customer_key, 3)`);
  const identity = sql`CASE WHEN r.customer_key LIKE 'e:%' THEN coalesce('c:' || ${holder}::text, r.customer_key) ELSE r.customer_key END`;
  const results =
    request.customerFunction === null
      ? sql`SELECT r.k, ${meterQuantity(meter.aggregation.func)} AS quantity FROM rows r WHERE r.k IN (SELECT k FROM points) GROUP BY GROUPING SETS ((r.k), ())`
      : sql`SELECT k, ${acrossCustomers(request.customerFunction)} AS quantity FROM (
          SELECT r.k, r.customer, ${meterQuantity(meter.aggregation.func)} AS q
          FROM (SELECT r.*, ${identity} AS customer FROM rows r WHERE r.k IN (SELECT k FROM points)) r
          GROUP BY GROUPING SETS ((r.k, r.customer), (r.customer))
        ) per_customer GROUP BY k`;

  const { rows: out } = await sql<QuantityRow>`WITH
    points AS (
      SELECT p AS local_point, date_trunc(${iv}, p) AS k
      FROM generate_series(${request.start}::timestamptz AT TIME ZONE ${tz}, ${request.end}::timestamptz AT TIME ZONE ${tz}, ${step}) p
    ),
    span AS (
      SELECT (min(k) AT TIME ZONE ${tz}) - interval '1 day' AS lo, ((max(k) + ${step}) AT TIME ZONE ${tz}) + interval '1 day' AS hi FROM points
    ),
    boundaries AS (SELECT k FROM points UNION SELECT max(k) + ${step} FROM points),
    split AS (
      SELECT DISTINCT h FROM (
        SELECT date_trunc('hour', b.k AT TIME ZONE ${tz}) + d * interval '1 hour' AS h FROM boundaries b, generate_series(-2, 2) d
      ) candidates WHERE NOT ${whole(sql`h`)}
      ${edgeHours}
    ),
    raw AS MATERIALIZED (${rawEvents}),
    rows AS (${rows}),
    results AS (${results})
    SELECT p.local_point AT TIME ZONE ${tz} AS "timestamp", coalesce(r.quantity, 0)::float8 AS quantity,
      coalesce((SELECT quantity FROM results WHERE k IS NULL), 0)::float8 AS total,
      coalesce((SELECT quantity FROM results WHERE k IS NULL), 0)::numeric::text AS exact_total
    FROM points p LEFT JOIN results r ON r.k = p.k ORDER BY p.local_point`.execute(db);
  return out;
}
