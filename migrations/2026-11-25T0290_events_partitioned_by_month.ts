import { sql, type Kysely } from "kysely";

/**
 * Events partitioned by month of `ingested_at` (docs/decisions.md, "Events partitioned by month").
 *
 * The table becomes `PARTITION BY RANGE (ingested_at)`: one partition per UTC month, named
 * `events_pYYYY_MM`, and `events_default` for any row outside them, so no insert ever fails. This
 * migration creates the months that hold the existing rows and the current one; the
 * `events:partitions` job (src/modules/events/event-partitions.ts) creates the months ahead, at
 * start-up and every hour.
 *
 * A unique index of a partitioned table must contain the partition key, so `(organization_id,
 * external_id)` can no longer be unique on `events`: `event_external_ids` holds each organization's
 * external ids once, and the ingest statement claims them there (the events whose claim loses are
 * the duplicates). The primary key becomes `(id, ingested_at)`.
 *
 * Existing rows are copied into the new table and their external ids claimed, in this migration's
 * transaction (the old table is locked meanwhile; see docs/scaling.md for a large table).
 */

/** The columns as 2026-11-22T0010 defined them; the primary key is what changes. */
const DEFINITIONS = sql`id uuid NOT NULL DEFAULT gen_random_uuid(),
  ingested_at timestamptz NOT NULL DEFAULT now(),
  organization_id uuid NOT NULL,
  source text NOT NULL DEFAULT 'user' CHECK (source IN ('system', 'user')),
  name text NOT NULL,
  "timestamp" timestamptz NOT NULL,
  customer_id uuid,
  external_customer_id text,
  member_id uuid,
  external_member_id text,
  external_id text,
  parent_id text,
  root_id uuid,
  metadata jsonb NOT NULL DEFAULT '{}'::jsonb`;

const COLUMNS = sql`id, ingested_at, organization_id, source, name, "timestamp", customer_id, external_customer_id, member_id,
  external_member_id, external_id, parent_id, root_id, metadata`;

/** The first instant of each UTC month from `first`'s month to `last`'s, both included. */
function monthsBetween(first: Date, last: Date): Date[] {
  const months: Date[] = [];
  for (let month = Date.UTC(first.getUTCFullYear(), first.getUTCMonth(), 1); month <= last.getTime();) {
    const start = new Date(month);
    months.push(start);
    month = Date.UTC(start.getUTCFullYear(), start.getUTCMonth() + 1, 1);
  }
  return months;
}

async function createMonthPartition(db: Kysely<unknown>, start: Date): Promise<void> {
  const end = new Date(Date.UTC(start.getUTCFullYear(), start.getUTCMonth() + 1, 1));
  const name = `events_p${start.getUTCFullYear()}_${String(start.getUTCMonth() + 1).padStart(2, "0")}`;
  await sql`CREATE TABLE ${sql.table(name)} PARTITION OF events FOR VALUES FROM (${sql.lit(start.toISOString())}) TO (${sql.lit(end.toISOString())})`.execute(
    db,
  );
}

/** The indexes the reads use, the same before and after; on a partitioned table each partition gets its own. */
const READ_INDEXES = {
  events_org_timestamp_idx: sql`(organization_id, "timestamp", id)`,
  events_org_customer_idx: sql`(organization_id, customer_id, "timestamp") WHERE customer_id IS NOT NULL`,
  events_org_external_customer_idx: sql`(organization_id, external_customer_id, "timestamp") WHERE external_customer_id IS NOT NULL`,
  events_org_parent_idx: sql`(organization_id, parent_id) WHERE parent_id IS NOT NULL`,
};

async function createReadIndexes(db: Kysely<unknown>): Promise<void> {
  for (const [name, definition] of Object.entries(READ_INDEXES))
    await sql`CREATE INDEX ${sql.ref(name)} ON events ${definition}`.execute(db);
}

/** Index names are per schema: the renamed table's indexes go, so the new table's can take their names. */
async function dropIndexes(db: Kysely<unknown>, externalIdIndex: string): Promise<void> {
  for (const name of [externalIdIndex, ...Object.keys(READ_INDEXES)]) await sql`DROP INDEX ${sql.ref(name)}`.execute(db);
}

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE events RENAME TO events_unpartitioned`.execute(db);
  await sql`ALTER TABLE events_unpartitioned RENAME CONSTRAINT events_pkey TO events_unpartitioned_pkey`.execute(db);
  await dropIndexes(db, "events_org_external_id_uq");

  await sql`CREATE TABLE events (${DEFINITIONS}, PRIMARY KEY (id, ingested_at)) PARTITION BY RANGE (ingested_at)`.execute(db);

  const { rows } = await sql<{ first: Date | null; now: Date }>`SELECT min(ingested_at) AS first, now() FROM events_unpartitioned`.execute(
    db,
  );
  const { first, now } = rows[0]!;
  for (const month of monthsBetween(first !== null && first < now ? first : now, now)) await createMonthPartition(db, month);
  await sql`CREATE TABLE events_default PARTITION OF events DEFAULT`.execute(db);

  await sql`CREATE TABLE event_external_ids (
    organization_id uuid NOT NULL,
    external_id text NOT NULL,
    PRIMARY KEY (organization_id, external_id)
  )`.execute(db);

  await sql`INSERT INTO events (${COLUMNS}) SELECT ${COLUMNS} FROM events_unpartitioned`.execute(db);
  await sql`INSERT INTO event_external_ids (organization_id, external_id)
    SELECT organization_id, external_id FROM events_unpartitioned WHERE external_id IS NOT NULL`.execute(db);
  await sql`DROP TABLE events_unpartitioned`.execute(db);

  // Built after the copy (faster than maintaining them row by row); each partition gets its own.
  // The external id index is for lookups (parents named by external id), not uniqueness.
  await sql`CREATE INDEX events_org_external_id_idx ON events (organization_id, external_id) WHERE external_id IS NOT NULL`.execute(db);
  await createReadIndexes(db);
}

/** Back to one table (as 2026-11-22T0010 made it), with every partition's rows. */
export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE events RENAME TO events_partitioned`.execute(db);
  await sql`ALTER TABLE events_partitioned RENAME CONSTRAINT events_pkey TO events_partitioned_pkey`.execute(db);
  await dropIndexes(db, "events_org_external_id_idx");
  await sql`CREATE TABLE events (${DEFINITIONS}, PRIMARY KEY (id))`.execute(db);
  await sql`INSERT INTO events (${COLUMNS}) SELECT ${COLUMNS} FROM events_partitioned`.execute(db);
  await sql`DROP TABLE events_partitioned`.execute(db);
  await sql`DROP TABLE event_external_ids`.execute(db);
  await sql`CREATE UNIQUE INDEX events_org_external_id_uq ON events (organization_id, external_id) WHERE external_id IS NOT NULL`.execute(
    db,
  );
  await createReadIndexes(db);
}
