import { sql, type Kysely } from "kysely";

/**
 * Files sellers upload (installers, product images, avatars) and what customers may download.
 * A file row is written when its upload opens and marked uploaded when its parts are joined;
 * `upload_parts` keeps the parts as announced (ranges and checksums), which the completion checks.
 * A `downloadables` row is one customer's access to one file through one benefit, with its download count.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE TABLE files (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    created_at timestamptz NOT NULL DEFAULT now(),
    modified_at timestamptz,
    deleted_at timestamptz,
    organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    service text NOT NULL CHECK (service IN ('downloadable', 'product_media', 'organization_avatar')),
    name text NOT NULL,
    path text NOT NULL,
    mime_type text NOT NULL,
    size bigint NOT NULL CHECK (size >= 0),
    version text,
    checksum_sha256_base64 text,
    checksum_sha256_hex text,
    checksum_etag text,
    storage_version text,
    last_modified_at timestamptz,
    is_uploaded boolean NOT NULL DEFAULT false,
    is_enabled boolean NOT NULL DEFAULT true,
    flagged_malicious_at timestamptz,
    upload_id text NOT NULL,
    upload_parts jsonb NOT NULL
  )`.execute(db);
  await sql`CREATE INDEX files_organization ON files (organization_id, created_at) WHERE deleted_at IS NULL`.execute(db);

  await sql`CREATE TABLE downloadables (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    created_at timestamptz NOT NULL DEFAULT now(),
    modified_at timestamptz,
    organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    customer_id uuid NOT NULL REFERENCES customers(id) ON DELETE CASCADE,
    benefit_id uuid NOT NULL REFERENCES benefits(id) ON DELETE CASCADE,
    file_id uuid NOT NULL REFERENCES files(id) ON DELETE CASCADE,
    status text NOT NULL CHECK (status IN ('granted', 'revoked')),
    downloaded integer NOT NULL DEFAULT 0,
    last_downloaded_at timestamptz,
    UNIQUE (customer_id, benefit_id, file_id)
  )`.execute(db);
  await sql`CREATE INDEX downloadables_benefit ON downloadables (benefit_id, file_id)`.execute(db);
  await sql`CREATE INDEX downloadables_file ON downloadables (file_id)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE downloadables`.execute(db);
  await sql`DROP TABLE files`.execute(db);
}
