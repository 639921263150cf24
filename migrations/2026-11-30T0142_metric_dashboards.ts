import { sql, type Kysely } from "kysely";

/** Saved metrics dashboards: a name and the metric slugs shown, nothing else (no layout, no range). */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE TABLE metric_dashboards (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    created_at timestamptz NOT NULL DEFAULT now(),
    modified_at timestamptz,
    organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    name text NOT NULL,
    metrics text[] NOT NULL
  )`.execute(db);
  await sql`CREATE INDEX metric_dashboards_organization ON metric_dashboards (organization_id, created_at)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE metric_dashboards`.execute(db);
}
