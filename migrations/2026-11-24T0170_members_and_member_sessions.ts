import { sql, type Kysely } from "kysely";

/**
 * Members of a customer (a team's people, or an individual customer's owner) and the portal
 * sessions opened for one of them. Each customer has at most one live owner; a member's email
 * (case-insensitive) and external ID are unique among the customer's live members.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("members")
    .addColumn("id", "uuid", (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn("modified_at", "timestamptz")
    .addColumn("organization_id", "uuid", (c) => c.notNull().references("organizations.id").onDelete("cascade"))
    .addColumn("customer_id", "uuid", (c) => c.notNull().references("customers.id").onDelete("cascade"))
    .addColumn("email", "text", (c) => c.notNull())
    .addColumn("name", "text")
    .addColumn("external_id", "text")
    .addColumn("role", "text", (c) => c.notNull().check(sql`role IN ('owner','billing_manager','member')`))
    .addColumn("deleted_at", "timestamptz")
    .execute();
  await sql`CREATE UNIQUE INDEX members_customer_email_uq ON members (customer_id, lower(email)) WHERE deleted_at IS NULL`.execute(db);
  await sql`CREATE UNIQUE INDEX members_customer_external_id_uq ON members (customer_id, external_id) WHERE deleted_at IS NULL AND external_id IS NOT NULL`.execute(
    db,
  );
  await sql`CREATE UNIQUE INDEX members_customer_owner_uq ON members (customer_id) WHERE deleted_at IS NULL AND role = 'owner'`.execute(db);
  await db.schema.createIndex("members_org_created_idx").on("members").columns(["organization_id", "created_at"]).execute();

  await db.schema
    .createTable("member_sessions")
    .addColumn("id", "uuid", (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn("modified_at", "timestamptz")
    .addColumn("organization_id", "uuid", (c) => c.notNull().references("organizations.id").onDelete("cascade"))
    .addColumn("customer_id", "uuid", (c) => c.notNull().references("customers.id").onDelete("cascade"))
    .addColumn("member_id", "uuid", (c) => c.notNull().references("members.id").onDelete("cascade"))
    .addColumn("token_hash", "char(64)", (c) => c.notNull().unique())
    .addColumn("expires_at", "timestamptz", (c) => c.notNull())
    .addColumn("return_url", "text")
    .execute();
  await db.schema.createIndex("member_sessions_member_idx").on("member_sessions").columns(["member_id", "expires_at"]).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("member_sessions").ifExists().execute();
  await db.schema.dropTable("members").ifExists().execute();
}
