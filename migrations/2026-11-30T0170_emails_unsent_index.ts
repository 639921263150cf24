import { sql, type Kysely } from "kysely";

/** `/metrics` counts the emails waiting and given up on at every scrape: a partial index keeps that off the sent ones. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE INDEX emails_unsent ON emails (status) WHERE status IN ('pending', 'failed')`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP INDEX emails_unsent`.execute(db);
}
