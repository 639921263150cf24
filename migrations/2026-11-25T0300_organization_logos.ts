import { sql, type Kysely } from "kysely";

/**
 * The seller's logo fetched from its http(s) avatar URL when the URL was set, kept with the URL it
 * came from: documents draw it only while the avatar URL is still that one, and render from these
 * bytes without any network (docs/decisions.md, "The seller's logo on documents").
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE organization_logos (
      organization_id uuid PRIMARY KEY REFERENCES organizations (id) ON DELETE CASCADE,
      source_url text NOT NULL,
      content bytea NOT NULL CHECK (octet_length(content) BETWEEN 1 AND 262144),
      fetched_at timestamptz NOT NULL
    )
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("organization_logos").execute();
}
