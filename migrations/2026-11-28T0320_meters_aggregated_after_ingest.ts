import { sql, type Kysely } from "kysely";

/**
 * Meters aggregate the ingested events after their commit (docs/decisions.md, "Meters: aggregated
 * after ingest"), no longer in the statement that inserts them:
 *
 * - `meters.aggregated_until`: events ingested before this instant are in the meter's buckets (or
 *   its pending back-fill's); the later ones are read raw until the `meters:aggregate` job moves
 *   the instant on. Every event ingested before this migration was aggregated by its ingest, so
 *   existing meters start at the migration's clock.
 * - `events (organization_id, ingested_at)`: what finds those later events (the job, the reads)
 *   without scanning the organization's events.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE meters ADD COLUMN aggregated_until timestamptz`.execute(db);
  // In milliseconds, as every instant the application writes (JavaScript dates), rounded up: past every event.
  await sql`UPDATE meters SET aggregated_until = greatest(date_trunc('milliseconds', clock_timestamp()) + interval '1 millisecond', backfill_cut)`.execute(
    db,
  );
  await sql`ALTER TABLE meters ALTER COLUMN aggregated_until SET NOT NULL`.execute(db);
  await sql`CREATE INDEX events_org_ingested_at_idx ON events (organization_id, ingested_at)`.execute(db);
}

/**
 * Ingest aggregating again in its own statement, the events not aggregated yet would be missed:
 * they are added to the buckets as the job would, before the column goes.
 */
export async function down(db: Kysely<unknown>): Promise<void> {
  const { rows } = await sql<{ pending: boolean }>`SELECT EXISTS (
      SELECT 1 FROM meters m JOIN events e ON e.organization_id = m.organization_id AND e.ingested_at >= m.aggregated_until
    ) AS pending`.execute(db);
  if (rows[0]?.pending) throw new Error("events ingested since the last meters:aggregate run: run the worker once before migrating down");
  await sql`DROP INDEX events_org_ingested_at_idx`.execute(db);
  await sql`ALTER TABLE meters DROP COLUMN aggregated_until`.execute(db);
}
