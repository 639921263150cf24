import { sql, type Kysely } from "kysely";

/**
 * Idempotency-Key records (src/http/idempotency.ts): one per principal scope and key, reserved
 * (`running`, with a lease) before the request runs and completed with its response. A request's
 * own transactions stamp `committed_at`, so a retry after a crash knows whether changes were made.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("idempotency_keys")
    .addColumn("id", "uuid", (c) => c.primaryKey())
    .addColumn("scope", "text", (c) => c.notNull())
    .addColumn("key", "text", (c) => c.notNull())
    .addColumn("fingerprint", "text", (c) => c.notNull())
    .addColumn("state", "text", (c) => c.notNull().check(sql`state IN ('running', 'completed')`))
    .addColumn("locked_until", "timestamptz", (c) => c.notNull())
    .addColumn("committed_at", "timestamptz")
    .addColumn("status_code", "integer")
    .addColumn("response_headers", "jsonb")
    .addColumn("response_body", "text")
    .addColumn("created_at", "timestamptz", (c) => c.notNull())
    .addColumn("expires_at", "timestamptz", (c) => c.notNull())
    .addUniqueConstraint("idempotency_keys_scope_key_key", ["scope", "key"])
    .execute();
  await db.schema.createIndex("idempotency_keys_expires_at_idx").on("idempotency_keys").column("expires_at").execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("idempotency_keys").execute();
}
