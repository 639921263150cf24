import { sql, type Kysely } from "kysely";

/**
 * `meter_bucket_deltas` (docs/decisions.md, "Meters: deltas appended, then compacted"): ingest
 * appends each batch's partial aggregates here, a new row per meter, customer and hour it touched,
 * instead of updating the key's row in `meter_buckets`, so concurrent batches never wait on the same
 * rows. Reads add up both tables; a job moves the deltas into `meter_buckets` every minute.
 *
 * One index (the key, which every read of the deltas names) and no foreign key: a check per
 * inserted row on every batch, for rows written only for a meter the same transaction read under
 * the meter definitions' lock (meters are never deleted).
 *
 * Ingest now probes `meter_buckets` for a whole key (is this customer's hour new?): its index on
 * (meter, hour) gains the customer as a third column, so whichever of its two indexes the planner
 * picks finds a key in one descent, and the all-customer range reads keep their index.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  // The same columns as the buckets (with their NOT NULLs), none of their keys or storage settings.
  await sql`CREATE TABLE meter_bucket_deltas (LIKE meter_buckets)`.execute(db);
  await sql`CREATE INDEX meter_bucket_deltas_key_idx ON meter_bucket_deltas (meter_id, customer_key, bucket)`.execute(db);
  await sql`DROP INDEX meter_buckets_meter_bucket_idx`.execute(db);
  await sql`CREATE INDEX meter_buckets_meter_bucket_idx ON meter_buckets (meter_id, bucket, customer_key)`.execute(db);
}

/** Deltas not yet moved are merged into the buckets first (both tables' rows of a key summed into one), so nothing counted is lost. */
export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE TEMPORARY TABLE merged_meter_buckets ON COMMIT DROP AS
    SELECT meter_id, customer_key, bucket, sum(events) AS events, sum("values") AS "values", sum(sum) AS sum, min(min) AS min, max(max) AS max
    FROM (
      SELECT meter_id, customer_key, bucket, events, "values", sum, min, max FROM meter_buckets
      UNION ALL SELECT d.meter_id, d.customer_key, d.bucket, d.events, d."values", d.sum, d.min, d.max FROM meter_bucket_deltas d JOIN meters m ON m.id = d.meter_id
    ) rows
    GROUP BY meter_id, customer_key, bucket`.execute(db);
  await sql`DELETE FROM meter_buckets`.execute(db);
  await sql`INSERT INTO meter_buckets (meter_id, customer_key, bucket, events, "values", sum, min, max) SELECT * FROM merged_meter_buckets`.execute(
    db,
  );
  await sql`DROP TABLE meter_bucket_deltas`.execute(db);
  await sql`DROP INDEX meter_buckets_meter_bucket_idx`.execute(db);
  await sql`CREATE INDEX meter_buckets_meter_bucket_idx ON meter_buckets (meter_id, bucket)`.execute(db);
}
