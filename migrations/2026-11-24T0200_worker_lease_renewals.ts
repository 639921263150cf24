import { sql, type Kysely } from "kysely";

/**
 * When each worker's process last renewed its lease. A lease whose advisory lock is gone (its
 * connection died: a crash, or a database restart) is presumed alive for a grace period after
 * its last renewal or the database's start, whichever is later: a live process re-takes its lock
 * within it, a dead one does not (src/jobs/worker-leases.ts).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable("worker_leases")
    .addColumn("renewed_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("worker_leases").dropColumn("renewed_at").execute();
}
