import { sql, type Kysely } from "kysely";

/**
 * Signed license files (an extension): each organization's Ed25519 signing keys, the private half
 * sealed under the server secret. One key per organization is active (`retired_at` null, a partial
 * unique index, so two first uses at once make one key); a retired key stays published while a
 * file it signed may still be refreshed (`signed_until`, the latest refresh deadline it signed).
 * `license_file_ttl_days` is the file lifetime a key carries from its benefit's terms, like its limits.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE TABLE license_signing_keys (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    created_at timestamptz NOT NULL DEFAULT now(),
    organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    public_key text NOT NULL,
    private_key_sealed text NOT NULL,
    retired_at timestamptz,
    signed_until timestamptz
  )`.execute(db);
  await sql`CREATE UNIQUE INDEX license_signing_keys_active ON license_signing_keys (organization_id) WHERE retired_at IS NULL`.execute(db);
  await sql`CREATE INDEX license_signing_keys_organization ON license_signing_keys (organization_id, created_at)`.execute(db);
  await sql`ALTER TABLE license_keys ADD COLUMN license_file_ttl_days integer`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE license_keys DROP COLUMN license_file_ttl_days`.execute(db);
  await sql`DROP TABLE license_signing_keys`.execute(db);
}
