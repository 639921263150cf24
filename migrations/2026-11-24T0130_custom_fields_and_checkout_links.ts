import { sql, type Kysely } from "kysely";

/**
 * Custom fields (one slug per organization among live fields), their attachment to products, and
 * checkout links with the products they offer.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("custom_fields")
    .addColumn("id", "uuid", (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn("modified_at", "timestamptz")
    .addColumn("deleted_at", "timestamptz")
    .addColumn("organization_id", "uuid", (c) => c.notNull().references("organizations.id").onDelete("cascade"))
    .addColumn("type", "text", (c) => c.notNull().check(sql`type IN ('text','number','date','checkbox','select')`))
    .addColumn("slug", "text", (c) => c.notNull())
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("properties", "jsonb", (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn("metadata", "jsonb", (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .execute();
  await sql`CREATE UNIQUE INDEX custom_fields_org_slug_uq ON custom_fields (organization_id, slug) WHERE deleted_at IS NULL`.execute(db);
  await sql`CREATE INDEX custom_fields_org_idx ON custom_fields (organization_id, created_at) WHERE deleted_at IS NULL`.execute(db);

  await db.schema
    .createTable("product_custom_fields")
    .addColumn("organization_id", "uuid", (c) => c.notNull().references("organizations.id").onDelete("cascade"))
    .addColumn("product_id", "uuid", (c) => c.notNull().references("products.id").onDelete("cascade"))
    .addColumn("custom_field_id", "uuid", (c) => c.notNull().references("custom_fields.id").onDelete("cascade"))
    .addColumn("position", "integer", (c) => c.notNull())
    .addColumn("required", "boolean", (c) => c.notNull())
    .addPrimaryKeyConstraint("product_custom_fields_pk", ["product_id", "custom_field_id"])
    .execute();
  await db.schema.createIndex("product_custom_fields_field_idx").on("product_custom_fields").column("custom_field_id").execute();

  await db.schema
    .createTable("checkout_links")
    .addColumn("id", "uuid", (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn("modified_at", "timestamptz")
    .addColumn("deleted_at", "timestamptz")
    .addColumn("organization_id", "uuid", (c) => c.notNull().references("organizations.id").onDelete("cascade"))
    .addColumn("client_secret", "text", (c) => c.notNull().unique())
    .addColumn("label", "text")
    .addColumn("allow_discount_codes", "boolean", (c) => c.notNull().defaultTo(true))
    .addColumn("require_billing_address", "boolean", (c) => c.notNull().defaultTo(false))
    .addColumn("discount_id", "uuid", (c) => c.references("discounts.id").onDelete("set null"))
    .addColumn("seats", "integer")
    .addColumn("trial_interval", "text")
    .addColumn("trial_interval_count", "integer")
    .addColumn("success_url", "text")
    .addColumn("return_url", "text")
    .addColumn("metadata", "jsonb", (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .execute();
  await sql`CREATE INDEX checkout_links_org_idx ON checkout_links (organization_id, created_at) WHERE deleted_at IS NULL`.execute(db);

  await db.schema
    .createTable("checkout_link_products")
    .addColumn("organization_id", "uuid", (c) => c.notNull().references("organizations.id").onDelete("cascade"))
    .addColumn("checkout_link_id", "uuid", (c) => c.notNull().references("checkout_links.id").onDelete("cascade"))
    .addColumn("product_id", "uuid", (c) => c.notNull().references("products.id").onDelete("cascade"))
    .addColumn("position", "integer", (c) => c.notNull())
    .addPrimaryKeyConstraint("checkout_link_products_pk", ["checkout_link_id", "product_id"])
    .execute();
  await db.schema.createIndex("checkout_link_products_product_idx").on("checkout_link_products").column("product_id").execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ["checkout_link_products", "checkout_links", "product_custom_fields", "custom_fields"]) {
    await db.schema.dropTable(table).execute();
  }
}
