import { sql, type Kysely } from "kysely";

/**
 * Customer meters (docs/decisions.md, "Customer meters and credits"): one row per customer and
 * meter once the meter is credited to the customer. The row holds what is not in the meter's
 * buckets: the credits since the window opened (`credited_units`, never below 0), the part of them
 * flagged rollover (`rollover_units`), and the instant the window opened (`reset_at`, null for all
 * time). Consumed units are read from the buckets when the row is read.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE TABLE customer_meters (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    created_at timestamptz NOT NULL,
    modified_at timestamptz,
    organization_id uuid NOT NULL REFERENCES organizations (id),
    customer_id uuid NOT NULL REFERENCES customers (id),
    meter_id uuid NOT NULL REFERENCES meters (id),
    credited_units bigint NOT NULL DEFAULT 0 CHECK (credited_units >= 0),
    rollover_units bigint NOT NULL DEFAULT 0 CHECK (rollover_units >= 0),
    reset_at timestamptz,
    UNIQUE (customer_id, meter_id)
  )`.execute(db);
  await sql`CREATE INDEX customer_meters_org_modified_idx ON customer_meters (organization_id, modified_at DESC, id)`.execute(db);
  await sql`CREATE INDEX customer_meters_meter_idx ON customer_meters (meter_id)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE customer_meters`.execute(db);
}
