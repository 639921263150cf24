import { sql, type Kysely } from "kysely";

/**
 * The seller's switches for its own notices (new sale, new subscriber, dispute, renewal), an
 * extension of PATCH /v1/organizations/{id}: only the switches a seller changed are stored; a missing
 * one reads as its default.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE organizations ADD COLUMN notification_settings jsonb NOT NULL DEFAULT '{}'`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE organizations DROP COLUMN notification_settings`.execute(db);
}
