import { sql, type Kysely } from "kysely";

/**
 * The emails a send job takes along with its own (`claimFreshPendingEmails`): pending and never
 * tried, oldest first. Partial: the index holds only what is waiting, however large the outbox grows.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE INDEX emails_fresh_pending ON emails (created_at, id) WHERE status = 'pending' AND attempts = 0`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP INDEX emails_fresh_pending`.execute(db);
}
