import { sql, type Kysely } from "kysely";

/** The outbox: every webhook event, written in the transaction of the change that causes it. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("webhook_events")
    .addColumn("id", "uuid", (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn("organization_id", "uuid", (c) => c.notNull().references("organizations.id").onDelete("cascade"))
    .addColumn("type", "text", (c) => c.notNull())
    .addColumn("payload", "jsonb", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("webhook_events_org_idx").on("webhook_events").columns(["organization_id", "created_at"]).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("webhook_events").ifExists().execute();
}
