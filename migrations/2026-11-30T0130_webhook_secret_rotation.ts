import { sql, type Kysely } from "kysely";

/**
 * A rotated endpoint secret keeps signing, beside the new one, until `previous_secret_expires_at`:
 * receivers that have not yet switched keep verifying deliveries sent in the meantime.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE webhook_endpoints ADD COLUMN previous_secret_sealed text, ADD COLUMN previous_secret_expires_at timestamptz`.execute(
    db,
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE webhook_endpoints DROP COLUMN previous_secret_sealed, DROP COLUMN previous_secret_expires_at`.execute(db);
}
