import { sql, type Kysely } from "kysely";

/**
 * Webhook endpoints, the per-endpoint copy of each outbox event (its delivery state and its place
 * in the endpoint's order), and one row per delivery attempt.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("webhook_endpoints")
    .addColumn("id", "uuid", (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn("modified_at", "timestamptz")
    .addColumn("deleted_at", "timestamptz")
    .addColumn("organization_id", "uuid", (c) => c.notNull().references("organizations.id").onDelete("cascade"))
    .addColumn("url", "text", (c) => c.notNull())
    .addColumn("name", "text")
    .addColumn("format", "text", (c) => c.notNull().check(sql`format IN ('raw','discord','slack')`))
    .addColumn("secret_sealed", "text", (c) => c.notNull())
    .addColumn("events", sql`text[]`, (c) => c.notNull())
    .addColumn("enabled", "boolean", (c) => c.notNull().defaultTo(true))
    .addColumn("failed_events_streak", "integer", (c) => c.notNull().defaultTo(0))
    .execute();
  await sql`CREATE INDEX webhook_endpoints_org_idx ON webhook_endpoints (organization_id, created_at) WHERE deleted_at IS NULL`.execute(db);

  await db.schema
    .createTable("webhook_endpoint_events")
    .addColumn("id", "uuid", (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn("modified_at", "timestamptz")
    .addColumn("organization_id", "uuid", (c) => c.notNull().references("organizations.id").onDelete("cascade"))
    .addColumn("endpoint_id", "uuid", (c) => c.notNull().references("webhook_endpoints.id").onDelete("cascade"))
    .addColumn("event_id", "uuid", (c) => c.notNull().references("webhook_events.id").onDelete("cascade"))
    .addColumn("type", "text", (c) => c.notNull())
    .addColumn("sequence", "bigint", (c) => c.notNull())
    .addColumn("status", "text", (c) =>
      c
        .notNull()
        .defaultTo("pending")
        .check(sql`status IN ('pending','succeeded','failed','skipped')`),
    )
    .addColumn("attempts", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("last_http_code", "integer")
    .addColumn("next_attempt_at", "timestamptz", (c) => c.notNull())
    .addUniqueConstraint("webhook_endpoint_events_event_uq", ["endpoint_id", "event_id"])
    .addUniqueConstraint("webhook_endpoint_events_sequence_uq", ["endpoint_id", "sequence"])
    .execute();
  // The delivery loop's only question: the endpoint's earliest undelivered event.
  await sql`CREATE INDEX webhook_endpoint_events_pending_idx ON webhook_endpoint_events (endpoint_id, sequence) WHERE status = 'pending'`.execute(
    db,
  );

  await db.schema
    .createTable("webhook_deliveries")
    .addColumn("id", "uuid", (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn("organization_id", "uuid", (c) => c.notNull().references("organizations.id").onDelete("cascade"))
    .addColumn("endpoint_id", "uuid", (c) => c.notNull().references("webhook_endpoints.id").onDelete("cascade"))
    .addColumn("endpoint_event_id", "uuid", (c) => c.notNull().references("webhook_endpoint_events.id").onDelete("cascade"))
    .addColumn("attempt", "integer", (c) => c.notNull())
    .addColumn("succeeded", "boolean", (c) => c.notNull())
    .addColumn("http_code", "integer")
    .addColumn("response", "text")
    .addColumn("duration_ms", "integer", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("webhook_deliveries_org_idx").on("webhook_deliveries").columns(["organization_id", "created_at"]).execute();
  await db.schema.createIndex("webhook_deliveries_endpoint_idx").on("webhook_deliveries").columns(["endpoint_id", "created_at"]).execute();
  await db.schema.createIndex("webhook_deliveries_event_idx").on("webhook_deliveries").column("endpoint_event_id").execute();

  // Recording order (several events of one transaction share a timestamp): an endpoint receives its
  // events in this order. Outbox rows not yet copied to their endpoints hold back later ones.
  await db.schema.alterTable("webhook_events").addColumn("position", "bigserial").addColumn("fanned_out_at", "timestamptz").execute();
  await sql`CREATE INDEX webhook_events_pending_fanout_idx ON webhook_events (organization_id, position) WHERE fanned_out_at IS NULL`.execute(
    db,
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP INDEX IF EXISTS webhook_events_pending_fanout_idx`.execute(db);
  await db.schema.alterTable("webhook_events").dropColumn("fanned_out_at").dropColumn("position").execute();
  for (const table of ["webhook_deliveries", "webhook_endpoint_events", "webhook_endpoints"]) {
    await db.schema.dropTable(table).ifExists().execute();
  }
}
