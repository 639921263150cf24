import { sql, type Kysely } from "kysely";

/**
 * An organization's user event names, each with a label it may rename. A row is written when a
 * name is first ingested; the names already ingested are backfilled here.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE TABLE event_types (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    created_at timestamptz NOT NULL DEFAULT now(),
    modified_at timestamptz,
    organization_id uuid NOT NULL REFERENCES organizations (id),
    name text NOT NULL,
    label text NOT NULL,
    label_property_selector text,
    UNIQUE (organization_id, name)
  )`.execute(db);
  await sql`INSERT INTO event_types (organization_id, name, label, created_at)
    SELECT organization_id, name, name, min(ingested_at) FROM events WHERE source = 'user' GROUP BY organization_id, name`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE event_types`.execute(db);
}
