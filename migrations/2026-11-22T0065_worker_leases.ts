import { sql, type Kysely } from "kysely";

/**
 * Which process each job-queue worker belongs to. graphile-worker frees the jobs of a crashed
 * worker only after four hours; a lease row lets a starting process see that a worker's process
 * is gone (its advisory lock vanished with its connection) and release its jobs at once.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("worker_leases")
    .addColumn("worker_id", "text", (c) => c.primaryKey())
    .addColumn("lease_key", "integer", (c) => c.notNull())
    .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("worker_leases").execute();
}
