import { sql, type Kysely } from "kysely";

/**
 * Customer sessions (portal tokens, stored as HMAC hashes), and two catalog columns: benefit
 * visibility and the per-customer redemption limit of discounts; with the name indexes the
 * customer and product lists sort by.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("customer_sessions")
    .addColumn("id", "uuid", (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn("modified_at", "timestamptz")
    .addColumn("organization_id", "uuid", (c) => c.notNull().references("organizations.id").onDelete("cascade"))
    .addColumn("customer_id", "uuid", (c) => c.notNull().references("customers.id").onDelete("cascade"))
    .addColumn("token_hash", "char(64)", (c) => c.notNull().unique())
    .addColumn("expires_at", "timestamptz", (c) => c.notNull())
    .addColumn("return_url", "text")
    .execute();
  await db.schema.createIndex("customer_sessions_customer_idx").on("customer_sessions").columns(["customer_id", "expires_at"]).execute();

  await db.schema
    .alterTable("benefits")
    .addColumn("visibility", "text", (c) =>
      c
        .notNull()
        .defaultTo("public")
        .check(sql`visibility IN ('draft','private','public')`),
    )
    .execute();
  await db.schema.alterTable("discounts").addColumn("max_redemptions_per_customer", "integer").execute();
  await db.schema.createIndex("customers_org_name_idx").on("customers").columns(["organization_id", "name"]).execute();
  await db.schema.createIndex("products_org_name_idx").on("products").columns(["organization_id", "name"]).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex("products_org_name_idx").ifExists().execute();
  await db.schema.dropIndex("customers_org_name_idx").ifExists().execute();
  await db.schema.alterTable("discounts").dropColumn("max_redemptions_per_customer").execute();
  await db.schema.alterTable("benefits").dropColumn("visibility").execute();
  await db.schema.dropTable("customer_sessions").ifExists().execute();
}
