import { sql, type Kysely } from "kysely";

/**
 * The email outbox: one row per email, written in the transaction of the change that causes it.
 * `dedupe_key` names the cause (`order_confirmation:<order id>`), so a replayed cause writes no
 * second row; the send job marks the row `sent` (or `failed` on a permanent refusal). `kept` rows
 * were written without a mail transport configured and are only read (the CLI).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE TABLE emails (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    created_at timestamptz NOT NULL,
    organization_id uuid NOT NULL REFERENCES organizations (id),
    dedupe_key text NOT NULL UNIQUE,
    template text NOT NULL,
    locale text,
    sender_name text,
    sender_address text NOT NULL,
    recipient text NOT NULL,
    subject text NOT NULL,
    html text NOT NULL,
    text text NOT NULL,
    message_id text NOT NULL,
    status text NOT NULL CHECK (status IN ('pending', 'sent', 'failed', 'kept')),
    attempts integer NOT NULL DEFAULT 0,
    last_error text,
    sent_at timestamptz
  )`.execute(db);
  await sql`CREATE INDEX emails_organization_created ON emails (organization_id, created_at DESC, id)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE emails`.execute(db);
}
