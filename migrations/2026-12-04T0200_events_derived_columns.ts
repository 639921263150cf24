import { sql, type Kysely } from "kysely";

/**
 * The columns of `events` an ingest no longer sends (docs/decisions.md, "Ingest: the database
 * fills id, root_id and ingested_at"), so that its `COPY` carries what the event says and nothing
 * the database can work out:
 * - `root_id` becomes a stored generated column, the event's own id when it has no parent (what
 *   ingest wrote: no other writer sets it). Dropped and added again (PostgreSQL 15 cannot turn a
 *   column into a generated one), which rewrites every partition once, the values recomputed from
 *   `id` and `parent_id`: the same values every stored row held. Partitions made later copy the
 *   expression (`createEventPartition`, INCLUDING GENERATED).
 * - `ingested_at` defaults to `statement_timestamp()`: the instant the inserting statement reached
 *   the database, after the ingest lock the same transaction took (the meters' cuts rely on that
 *   order, meter-ingest-locks.repository.ts), and the same for every row of the statement. It was
 *   `now()`, the transaction's start, before the lock. Existing rows keep theirs.
 * `id` stays sent by the `COPY` (made in Node): its default, `gen_random_uuid()`, is volatile, and a
 * volatile default of a column a `COPY` leaves out makes PostgreSQL insert row by row.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE events DROP COLUMN root_id`.execute(db);
  await sql`ALTER TABLE events ADD COLUMN root_id uuid GENERATED ALWAYS AS (CASE WHEN parent_id IS NULL THEN id END) STORED`.execute(db);
  await sql`ALTER TABLE events ALTER COLUMN ingested_at SET DEFAULT statement_timestamp()`.execute(db);
}

/** Back to a plain `root_id` holding the same values, and `now()` as the default. */
export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE events ALTER COLUMN ingested_at SET DEFAULT now()`.execute(db);
  await sql`ALTER TABLE events ALTER COLUMN root_id DROP EXPRESSION`.execute(db);
}
