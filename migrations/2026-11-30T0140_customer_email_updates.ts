import { sql, type Kysely } from "kysely";

/**
 * A portal customer's pending change of email address: the new address and the keyed hash of the
 * token emailed to it (`polar_cev_…`, 30 minutes). A customer has at most one pending request (a
 * new one deletes the older); a row is deleted when verified, or discarded when the address was
 * taken meanwhile.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE TABLE customer_email_updates (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    created_at timestamptz NOT NULL DEFAULT now(),
    organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    customer_id uuid NOT NULL REFERENCES customers(id) ON DELETE CASCADE,
    email text NOT NULL,
    token_hash text NOT NULL UNIQUE,
    expires_at timestamptz NOT NULL
  )`.execute(db);
  await sql`CREATE INDEX customer_email_updates_customer ON customer_email_updates (customer_id)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE customer_email_updates`.execute(db);
}
