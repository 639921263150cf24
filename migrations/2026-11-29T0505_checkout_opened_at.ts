import { sql, type Kysely } from "kysely";

/**
 * When a checkout was first viewed by its buyer (the hosted page or the public client read): the
 * instant the metrics' `checkouts` count buckets it at. Older rows stay null (they count by their
 * creation, as the hosted service counts checkouts from before it recorded the first view).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE checkouts ADD COLUMN opened_at timestamptz`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE checkouts DROP COLUMN opened_at`.execute(db);
}
