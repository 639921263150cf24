import { sql, type Kysely } from "kysely";

/**
 * An endpoint is disabled once every delivery to it has failed for a while (`WEBHOOK_DISABLE_AFTER`),
 * no longer after a count of failed events: `failing_since` is the first failed attempt since its
 * last success. Endpoints failing at the time of this migration start their window now.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE webhook_endpoints ADD COLUMN failing_since timestamptz`.execute(db);
  await sql`UPDATE webhook_endpoints SET failing_since = now() WHERE failed_events_streak > 0 AND enabled`.execute(db);
  await sql`ALTER TABLE webhook_endpoints DROP COLUMN failed_events_streak`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE webhook_endpoints ADD COLUMN failed_events_streak integer NOT NULL DEFAULT 0`.execute(db);
  await sql`ALTER TABLE webhook_endpoints DROP COLUMN failing_since`.execute(db);
}
