import { sql, type Kysely } from "kysely";

/**
 * Usage events. No foreign keys on purpose: a referential check locks the parent row once per
 * inserted row (FOR KEY SHARE), which makes parallel ingest batches of one organization queue on
 * multixact locks; the ingest service checks organizations and customers once per batch instead.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("events")
    .addColumn("id", "uuid", (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn("ingested_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn("organization_id", "uuid", (c) => c.notNull())
    .addColumn("source", "text", (c) =>
      c
        .notNull()
        .defaultTo("user")
        .check(sql`source IN ('system','user')`),
    )
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("timestamp", "timestamptz", (c) => c.notNull())
    .addColumn("customer_id", "uuid")
    .addColumn("external_customer_id", "text")
    .addColumn("member_id", "uuid")
    .addColumn("external_member_id", "text")
    .addColumn("external_id", "text")
    // As sent: an event id or an external id, resolved when read.
    .addColumn("parent_id", "text")
    .addColumn("root_id", "uuid")
    .addColumn("metadata", "jsonb", (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .execute();
  await sql`CREATE UNIQUE INDEX events_org_external_id_uq ON events (organization_id, external_id) WHERE external_id IS NOT NULL`.execute(
    db,
  );
  await sql`CREATE INDEX events_org_timestamp_idx ON events (organization_id, "timestamp", id)`.execute(db);
  await sql`CREATE INDEX events_org_customer_idx ON events (organization_id, customer_id, "timestamp") WHERE customer_id IS NOT NULL`.execute(
    db,
  );
  await sql`CREATE INDEX events_org_external_customer_idx ON events (organization_id, external_customer_id, "timestamp") WHERE external_customer_id IS NOT NULL`.execute(
    db,
  );
  await sql`CREATE INDEX events_org_parent_idx ON events (organization_id, parent_id) WHERE parent_id IS NOT NULL`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("events").ifExists().execute();
}
