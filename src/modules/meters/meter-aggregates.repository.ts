import { sql, type RawBuilder, type SqlBool } from "kysely";
import type { Executor } from "../../db/database.ts";
import { aggregatedValue, compileFilter } from "./meter-filter.repository.ts";
import { liveCustomerWhere } from "../customers/customers.steps.ts";
import type { MeterSpec } from "./meters.table.ts";
import { bucketRows } from "./meter-bucket-reads.repository.ts";
import { meterDependentReads } from "./meter-dependent-reads.ts";

// The pre-aggregates of meters (docs/decisions.md, "Meters: pre-aggregates"): written after ingest
// by the `meters:aggregate` job (docs/decisions.md, "Meters: aggregated after ingest") and by the
// back-fill; the quantities read them, plus the events ingested since a meter's `aggregated_until`.

/** The customer an event names, as the buckets key it: `c:<customer id>` or `e:<external id>`. */
export const customerKey = (alias: string) =>
  sql<string>`CASE WHEN ${sql.ref(`${alias}.customer_id`)} IS NOT NULL THEN 'c:' || ${sql.ref(`${alias}.customer_id`)}::text ELSE 'e:' || coalesce(${sql.ref(`${alias}.external_customer_id`)}, '') END`;

/**
 * The live customer a key names, in `organization`: by id (`c:`) or by external id (`e:`), each
 * branch a lookup in its own unique index (one condition over both columns would scan every
 * customer of the organization for each key).
 */
const liveCustomerOfKey = (key: RawBuilder<string>, organization: RawBuilder<string>) =>
  sql`${liveCustomerWhere(organization, "id", sql<string | null>`CASE WHEN ${key} LIKE 'c:%' THEN substr(${key}, 3)::uuid END`)}
    UNION ALL
    ${liveCustomerWhere(organization, "external_id", sql<string | null>`CASE WHEN ${key} LIKE 'e:%' THEN substr(${key}, 3) END`)}`;

/** The meter's columns in `meter_events`: whether the event matches it, and what it contributes. */
const matchColumn = (index: number) => sql.ref(`m${index}`);

/**
 * Per meter, the index of the first meter with the same organization and filter: meters sharing a
 * filter (a count, a sum and a unique of the same events, say) share its match column, so each event
 * evaluates each distinct filter once, and their identical `count(*) FILTER` states are one.
 */
const matchIndexes = (meters: readonly MeterSpec[]) => {
  const keys = meters.map((meter) => `${meter.organization_id} ${JSON.stringify(meter.filter)}`);
  return keys.map((key) => keys.indexOf(key));
};
const numericColumn = (index: number) => sql.ref(`v${index}`);
const valueColumn = (index: number) => sql.ref(`j${index}`);

const meterCondition = (meter: MeterSpec, alias: string) =>
  sql<SqlBool>`(${sql.ref(`${alias}.organization_id`)} = ${meter.organization_id}::uuid AND ${compileFilter(meter.filter, alias)})`;

/**
 * One row per event of `source` that any meter matches: its customer key and hour, computed once,
 * and per meter whether it matches and the values it contributes. One row per event rather than one
 * per (meter, event): a single scan and a single grouping whatever the number of meters.
 */
function meterEvents(meters: readonly MeterSpec[], source: RawBuilder<unknown>, alias: string, extra: RawBuilder<SqlBool>) {
  const shared = matchIndexes(meters);
  const columns = meters.flatMap((meter, index) => {
    const { numeric, value } = aggregatedValue(meter.aggregation, alias);
    return [
      ...(shared[index] === index ? [sql`${meterCondition(meter, alias)} AS ${matchColumn(index)}`] : []),
      ...(numericFunction(meter) ? [sql`${numeric} AS ${numericColumn(index)}`] : []),
      ...(meter.aggregation.func === "unique" ? [sql`${value} AS ${valueColumn(index)}`] : []),
    ];
  });
  // Each condition is evaluated once, in the inner select (`OFFSET 0` keeps the planner from merging
  // it into the outer one, which would evaluate them again); the outer keeps the rows any meter matches.
  return sql`SELECT * FROM (
      SELECT ${customerKey(alias)} AS customer_key, date_trunc('hour', ${sql.ref(`${alias}.timestamp`)}) AS bucket, ${sql.join(columns)}
      FROM ${source} ${sql.ref(alias)} WHERE ${extra} OFFSET 0
    ) AS per_event WHERE ${sql.join([...new Set(shared)].map(matchColumn), sql` OR `)}`;
}

/**
 * Whether the meter reads the numeric columns of its buckets (`values`, `sum`, `min`, `max`): a count
 * reads `events` only, a unique its value rows (`meter_bucket_values`); theirs stay 0 and null.
 */
const numericFunction = (meter: MeterSpec) => meter.aggregation.func !== "count" && meter.aggregation.func !== "unique";

/** Per customer and hour, each meter's partial aggregates (`FILTER`ed to the events it matches). */
function meterGroups(meters: readonly MeterSpec[]) {
  const shared = matchIndexes(meters);
  const aggregates = meters.flatMap((meter, index) => {
    const matches = matchColumn(shared[index]!);
    const v = numericColumn(index);
    const events = sql`count(*) FILTER (WHERE ${matches}) AS ${sql.ref(`events${index}`)}`;
    if (!numericFunction(meter)) return [events];
    return [
      events,
      sql`count(${v}) FILTER (WHERE ${matches}) AS ${sql.ref(`values${index}`)}`,
      sql`sum(${v}) FILTER (WHERE ${matches}) AS ${sql.ref(`sum${index}`)}`,
      sql`min(${v}) FILTER (WHERE ${matches}) AS ${sql.ref(`min${index}`)}`,
      sql`max(${v}) FILTER (WHERE ${matches}) AS ${sql.ref(`max${index}`)}`,
    ];
  });
  return sql`SELECT customer_key, bucket, ${sql.join(aggregates)} FROM meter_events GROUP BY customer_key, bucket`;
}

/** The groups as one row per (meter, customer, hour) the batch touched. */
function meterGroupRows(meters: readonly MeterSpec[]) {
  const perMeter = meters.map((meter, index) => {
    const numeric = numericFunction(meter)
      ? ["values", "sum", "min", "max"].map((name) => sql.ref(`g.${name}${index}`))
      : [sql`0::bigint`, sql`NULL::numeric`, sql`NULL::numeric`, sql`NULL::numeric`];
    return sql`(${meter.id}::uuid, ${sql.ref(`g.events${index}`)}, ${sql.join(numeric)})`;
  });
  return sql`SELECT x.meter_id, g.customer_key, g.bucket, x.events, x."values", x.sum, x.min, x.max
      FROM meter_groups g CROSS JOIN LATERAL (VALUES ${sql.join(perMeter)}) AS x(meter_id, events, "values", sum, min, max)
      WHERE x.events > 0`;
}

/** Each unique meter's distinct values per customer and hour. */
function meterValueRows(meters: readonly MeterSpec[]) {
  const shared = matchIndexes(meters);
  const parts = meters.flatMap((meter, index) =>
    meter.aggregation.func === "unique"
      ? [
          sql`SELECT ${meter.id}::uuid AS meter_id, customer_key, bucket, ${valueColumn(index)} AS value
            FROM meter_events WHERE ${matchColumn(shared[index]!)} AND ${valueColumn(index)} IS NOT NULL`,
        ]
      : [],
  );
  return parts.length === 0 ? null : sql.join(parts, sql` UNION ALL `);
}

/**
 * The CTEs (each starting with a comma) that add the rows of `source` to the meters' pre-aggregates.
 * Their partial aggregates are appended to `meter_bucket_deltas`, a new row per meter, customer and
 * hour they touch, which no other writer holds: concurrent writers (the aggregation, back-fills)
 * never wait on each other's rows, and `compactMeterBucketDeltas` later moves them into
 * `meter_buckets`. Value rows (for `unique`) go in ordered by key with `ON CONFLICT DO NOTHING`, so
 * two writers adding the same values lock their keys in the same order and cannot deadlock.
 *
 * A key with no bucket row before this statement (its snapshot does not see its own inserts) is a
 * customer's first event of a meter in that hour; only those look for the customer's meter row and
 * create it (activated by its first matching event, as the hosted service's), at `now`, so the common case,
 * a key already seen that hour, costs an index probe per table. Two writers racing on a new key
 * both try, and `ON CONFLICT DO NOTHING` keeps one row. A key whose external id names no customer
 * yet creates nothing (its next new hour will).
 */
function aggregateCtes(
  meters: readonly MeterSpec[],
  source: RawBuilder<unknown>,
  alias: string,
  now: Date,
  extra: RawBuilder<SqlBool> = sql`true`,
) {
  const valueRows = meterValueRows(meters);
  const activations = sql`SELECT DISTINCT c.organization_id, c.id, n.meter_id, ${now}::timestamptz
      FROM meter_new_keys n JOIN meters m ON m.id = n.meter_id
      CROSS JOIN LATERAL (${liveCustomerOfKey(sql.ref("n.customer_key"), sql.ref("m.organization_id"))}) c
      ORDER BY c.id, n.meter_id`;
  return sql`, meter_events AS MATERIALIZED (${meterEvents(meters, source, alias, extra)}),
    meter_groups AS (${meterGroups(meters)}),
    meter_group_rows AS MATERIALIZED (${meterGroupRows(meters)}),
    meter_delta_insert AS (
      INSERT INTO meter_bucket_deltas (meter_id, customer_key, bucket, events, "values", sum, min, max)
      SELECT meter_id, customer_key, bucket, events, "values", sum, min, max FROM meter_group_rows
    ),
    meter_new_keys AS MATERIALIZED (
      SELECT DISTINCT n.meter_id, n.customer_key FROM meter_group_rows n
      WHERE NOT EXISTS (SELECT 1 FROM meter_buckets o WHERE o.meter_id = n.meter_id AND o.customer_key = n.customer_key AND o.bucket = n.bucket)
        AND NOT EXISTS (SELECT 1 FROM meter_bucket_deltas o WHERE o.meter_id = n.meter_id AND o.customer_key = n.customer_key AND o.bucket = n.bucket)
    ),
    customer_meter_activation AS (${meterDependentReads().activateCustomerMeters(activations)})${
      valueRows
        ? sql`, meter_value_upsert AS (
      INSERT INTO meter_bucket_values (meter_id, customer_key, bucket, value)
      SELECT meter_id, customer_key, bucket, value FROM (
        SELECT meter_id, customer_key, bucket, value FROM (${valueRows}) AS v GROUP BY meter_id, customer_key, bucket, value OFFSET 0
      ) AS distinct_values ORDER BY meter_id, customer_key, bucket, value
      ON CONFLICT DO NOTHING
    )`
        : sql``
    }`;
}

/**
 * Moves up to `limit` deltas into `meter_buckets`, each key's deltas added to its row (created when
 * missing), in one statement, and returns how many it moved (fewer than `limit`: none is left). A
 * read before and after adds up the same numbers: the delete and the upsert commit together. Deltas
 * appended by a batch committing meanwhile are not in the statement's snapshot and wait for the next
 * run; two runs at once cannot count a delta twice, as only the statement that deleted a row returns
 * it. Keys go in ordered, so two runs adding to the same buckets cannot deadlock. Deltas of a meter
 * deleted meanwhile (the deltas have no foreign key; the buckets do) are dropped with it.
 */
export async function compactMeterBucketDeltas(db: Executor, limit: number): Promise<number> {
  const { rows } = await sql<{ moved: number }>`WITH moved AS (
      DELETE FROM meter_bucket_deltas d WHERE d.ctid = ANY (ARRAY(SELECT ctid FROM meter_bucket_deltas LIMIT ${limit}))
      RETURNING d.*
    ), merged AS (
      INSERT INTO meter_buckets (meter_id, customer_key, bucket, events, "values", sum, min, max)
      SELECT d.meter_id, d.customer_key, d.bucket, sum(d.events), sum(d."values"), sum(d.sum), min(d.min), max(d.max)
      FROM moved d JOIN meters m ON m.id = d.meter_id
      GROUP BY d.meter_id, d.customer_key, d.bucket ORDER BY d.meter_id, d.customer_key, d.bucket
      ON CONFLICT (meter_id, customer_key, bucket) DO UPDATE SET
        events = meter_buckets.events + excluded.events,
        "values" = meter_buckets."values" + excluded."values",
        sum = CASE WHEN excluded.sum IS NULL THEN meter_buckets.sum ELSE coalesce(meter_buckets.sum, 0) + excluded.sum END,
        min = LEAST(meter_buckets.min, excluded.min),
        max = GREATEST(meter_buckets.max, excluded.max)
    )
    SELECT count(*)::int AS moved FROM moved`.execute(db);
  return rows[0]?.moved ?? 0;
}

/** Adds the events `range` selects to the meters' buckets, in one statement. */
const aggregateEvents = (db: Executor, meters: readonly MeterSpec[], range: RawBuilder<SqlBool>, now: Date) =>
  sql`WITH source AS (SELECT 1)${aggregateCtes(meters, meterDependentReads().eventRows, "e", now, range)} SELECT 1`.execute(db);

/** Adds the meter's events ingested before its cut to its buckets (the back-fill); one statement. */
export async function backfillMeter(db: Executor, meter: MeterSpec, cut: Date, now: Date): Promise<void> {
  await aggregateEvents(db, [meter], sql<SqlBool>`e.organization_id = ${meter.organization_id}::uuid AND e.ingested_at < ${cut}`, now);
}

/**
 * Adds the events of the meters' organization ingested in [`from`, `until`) to their buckets, in one
 * statement: one scan of those events (through `events (organization_id, ingested_at)`) for all of
 * the meters, whose deltas the compaction then moves like every other.
 */
export async function aggregateIngestedEvents(
  db: Executor,
  organizationId: string,
  meters: readonly MeterSpec[],
  from: Date,
  until: Date,
  now: Date,
): Promise<void> {
  await aggregateEvents(
    db,
    meters,
    sql<SqlBool>`e.organization_id = ${organizationId}::uuid AND e.ingested_at >= ${from} AND e.ingested_at < ${until}`,
    now,
  );
}

/**
 * Where an aggregation step from `from` ends: `until`, or sooner, about `events` events of the
 * organization later (the step's last instant rounded up to the millisecond, the precision of the
 * instants it is compared with, so that it always moves on).
 */
export async function aggregationStepEnd(db: Executor, organizationId: string, from: Date, until: Date, events: number): Promise<Date> {
  const last = meterDependentReads().ingestedAtAfter(organizationId, from, until, events);
  const { rows } = await sql<{
    end: Date;
  }>`SELECT least(${until}::timestamptz, date_trunc('milliseconds', ${last}) + interval '1 millisecond') AS end`.execute(db);
  return rows[0]!.end;
}

/**
 * The organizations that have events ingested since one of their meters' `aggregated_until`: one
 * index probe per meter (a `LATERAL … LIMIT 1`: an `EXISTS` is planned as a semi-join, which hashed
 * every event of the table on each run).
 */
export async function organizationsWithUnaggregatedEvents(db: Executor): Promise<string[]> {
  const found = meterDependentReads().eventIngestedSince(sql.ref("m.organization_id"), sql.ref("m.aggregated_until"));
  const { rows } = await sql<{ organization_id: string }>`SELECT DISTINCT m.organization_id FROM meters m
    CROSS JOIN LATERAL (${found}) found`.execute(db);
  return rows.map((row) => row.organization_id);
}

/** Whether any event has reached the meter's buckets. */
export async function meterHasBuckets(db: Executor, meterId: string): Promise<boolean> {
  const { rows } = await sql<{
    found: boolean;
  }>`SELECT EXISTS (SELECT 1 FROM ${bucketRows} b WHERE b.meter_id = ${meterId}::uuid) AS found`.execute(db);
  return rows[0]?.found ?? false;
}

/** Whether any event ingested in [`from`, `until`) (either end open when null) matches the meter. */
export async function meterHasEventsIngested(db: Executor, meter: MeterSpec, from: Date | null, until: Date | null): Promise<boolean> {
  const { rows } = await sql<{ found: boolean }>`SELECT EXISTS (
      SELECT 1 FROM ${meterDependentReads().eventRows} e WHERE e.organization_id = ${meter.organization_id}::uuid
        AND ${from === null ? sql`true` : sql`e.ingested_at >= ${from}`} AND ${until === null ? sql`true` : sql`e.ingested_at < ${until}`}
        AND ${compileFilter(meter.filter, "e")}
    ) AS found`.execute(db);
  return rows[0]?.found ?? false;
}
