import { sql, type Kysely } from "kysely";

/**
 * What PATCH /v1/organizations/{id} writes that no column held yet: the hosts allowed to embed the
 * checkout, and the organization's email sender override (an extension of this service): the
 * address its emails come from, with an optional display name and Reply-To. No address, no override.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    ALTER TABLE organizations
      ADD COLUMN embed_hosts text[] NOT NULL DEFAULT '{}',
      ADD COLUMN email_sender_name text,
      ADD COLUMN email_sender_address text,
      ADD COLUMN email_reply_to text,
      ADD CONSTRAINT organizations_email_sender_ck
        CHECK (email_sender_address IS NOT NULL OR (email_sender_name IS NULL AND email_reply_to IS NULL))`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    ALTER TABLE organizations
      DROP CONSTRAINT organizations_email_sender_ck,
      DROP COLUMN email_reply_to,
      DROP COLUMN email_sender_address,
      DROP COLUMN email_sender_name,
      DROP COLUMN embed_hosts`.execute(db);
}
