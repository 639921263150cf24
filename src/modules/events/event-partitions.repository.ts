import { sql } from "kysely";
import type { Executor } from "../../db/database.ts";

// The partitions of `events` (docs/decisions.md, "Events partitioned by month"): SQL only.

/** One partition's bounds: `ingested_at` from `start` (included) to `end` (excluded). */
export interface PartitionBounds {
  name: string;
  start: Date;
  end: Date;
}

/** Serialises partition maintenance across processes, until the transaction ends. */
export async function lockPartitionMaintenance(trx: Executor): Promise<void> {
  await sql`SELECT pg_advisory_xact_lock(hashtextextended('events:partitions', 0))`.execute(trx);
}

/** The names of the tables attached to `events`, the default partition among them. */
export async function findEventPartitionNames(db: Executor): Promise<Set<string>> {
  const { rows } = await sql<{ name: string }>`SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
    WHERE i.inhparent = 'events'::regclass`.execute(db);
  return new Set(rows.map((row) => row.name));
}

/**
 * Creates the partition and attaches it. Created apart and then attached, because `ATTACH
 * PARTITION` takes a lock on `events` that lets ingest go on, where `CREATE TABLE … PARTITION OF`
 * would stop it. Rows that went to the default partition for want of this one are moved into it
 * first: attaching refuses while the default partition holds rows of the new range.
 */
export async function createEventPartition(trx: Executor, partition: PartitionBounds): Promise<void> {
  const table = sql.table(partition.name);
  const from = sql.lit(partition.start.toISOString());
  const to = sql.lit(partition.end.toISOString());
  await sql`CREATE TABLE ${table} (LIKE events INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING GENERATED)`.execute(trx);
  // A generated column (`root_id`) takes no value from an insert: the columns moved are the others, read from the catalog.
  const { rows } = await sql<{ columns: string }>`SELECT string_agg(quote_ident(attname), ', ' ORDER BY attnum) AS columns
    FROM pg_attribute WHERE attrelid = 'events'::regclass AND attnum > 0 AND NOT attisdropped AND attgenerated = ''`.execute(trx);
  const columns = sql.raw(rows[0]!.columns);
  await sql`WITH moved AS (DELETE FROM events_default WHERE ingested_at >= ${from} AND ingested_at < ${to} RETURNING *)
    INSERT INTO ${table} (${columns}) SELECT ${columns} FROM moved`.execute(trx);
  await sql`ALTER TABLE events ATTACH PARTITION ${table} FOR VALUES FROM (${from}) TO (${to})`.execute(trx);
}
