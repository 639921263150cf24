import { sql, type Kysely } from "kysely";

/**
 * Ways into the customer portal without a session: a 6-character code sent by email on request, or
 * a single-use link an email carries (a failed payment's). Only the keyed hash of the secret is
 * kept; a row is deleted when it is used, and expired ones are swept when codes are asked for.
 * `requester_hash` (a keyed hash of the asking client's address) ties a code to the client whose
 * wrong tries void it.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE TABLE portal_sign_ins (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    created_at timestamptz NOT NULL DEFAULT now(),
    organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    customer_id uuid NOT NULL REFERENCES customers(id) ON DELETE CASCADE,
    kind text NOT NULL CHECK (kind IN ('code', 'link')),
    secret_hash text NOT NULL UNIQUE,
    email text NOT NULL,
    target_path text,
    requester_hash text,
    failed_attempts integer NOT NULL DEFAULT 0,
    expires_at timestamptz NOT NULL
  )`.execute(db);
  await sql`CREATE INDEX portal_sign_ins_expires_at ON portal_sign_ins (expires_at)`.execute(db);
  await sql`CREATE INDEX portal_sign_ins_requester ON portal_sign_ins (requester_hash) WHERE requester_hash IS NOT NULL`.execute(db);
  await sql`CREATE INDEX portal_sign_ins_customer ON portal_sign_ins (customer_id)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE portal_sign_ins`.execute(db);
}
