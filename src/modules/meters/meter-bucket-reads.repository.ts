import { sql, type RawBuilder, type SqlBool } from "kysely";
import type { MeterRow, MeterSpec } from "./meters.table.ts";

// What the quantity and consumption reads add up: a meter's bucket rows, and the events no bucket
// holds yet (meter-aggregates.repository.ts writes the buckets).

/** What a read needs of a meter: its definition and where its buckets end. */
export type MeterState = MeterSpec & Pick<MeterRow, "backfilled_at" | "backfill_cut" | "aggregated_until">;

/**
 * The events of a meter that no bucket holds yet, which a read adds raw: those ingested since its
 * last aggregation, and, while its back-fill is pending, those ingested before its cut. Both are
 * read from the meter's row by the reading statement itself, in the snapshot it reads the buckets
 * in, so they agree whatever the caller's isolation and whatever committed since the caller read
 * the row. The caller's `aggregated_until` is repeated as a constant for the planner (a subquery's
 * value is unknown when it plans): it only moves on, so the caller's is never later than the
 * statement's, and the condition on both is the statement's alone.
 */
export function unaggregatedEvents(meter: MeterState, alias: string): RawBuilder<SqlBool> {
  const ingestedAt = sql.ref(`${alias}.ingested_at`);
  const row = (column: string, where: RawBuilder<unknown> = sql``) =>
    sql`(SELECT ${sql.ref(`m.${column}`)} FROM meters m WHERE m.id = ${meter.id}::uuid ${where})`;
  const sinceAggregation = sql<SqlBool>`(${ingestedAt} >= ${meter.aggregated_until}::timestamptz AND ${ingestedAt} >= ${row("aggregated_until")})`;
  if (meter.backfilled_at !== null) return sinceAggregation;
  // A back-fill done since the caller read the row leaves no cut: `< NULL` keeps nothing.
  return sql<SqlBool>`(${sinceAggregation} OR ${ingestedAt} < ${row("backfill_cut", sql`AND m.backfilled_at IS NULL`)})`;
}

/**
 * Every bucket row of the meters: the compacted ones and the deltas appended since (docs/decisions.md,
 * "Meters: deltas appended, then compacted"). A key may have several rows; every read adds them up.
 */
export const bucketRows = sql`(
  SELECT meter_id, customer_key, bucket, events, "values", sum, min, max FROM meter_buckets
  UNION ALL SELECT meter_id, customer_key, bucket, events, "values", sum, min, max FROM meter_bucket_deltas
)`;
