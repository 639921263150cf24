import { sql, type Kysely } from "kysely";

/**
 * Foundation: organizations and their tokens, the owner's personal token, and the catalog,
 * customer and checkout tables a checkout session reads. Conventions: UUID v4 keys, timestamptz,
 * integer minor units, jsonb metadata, an index leading with organization_id on owned rows.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE EXTENSION IF NOT EXISTS pgcrypto`.execute(db);

  await db.schema
    .createTable("organizations")
    .addColumn("id", "uuid", (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn("modified_at", "timestamptz")
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("slug", "text", (c) => c.notNull().unique())
    .addColumn("avatar_url", "text")
    .addColumn("email", "text")
    .addColumn("website", "text")
    .addColumn("socials", "jsonb", (c) => c.notNull().defaultTo(sql`'[]'::jsonb`))
    .addColumn("country", "text")
    .addColumn("default_presentment_currency", "text", (c) => c.notNull().defaultTo("usd"))
    .addColumn("default_tax_behavior", "text", (c) => c.notNull().defaultTo("location"))
    .addColumn("feature_settings", "jsonb", (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn("subscription_settings", "jsonb", (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn("customer_email_settings", "jsonb", (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn("customer_portal_settings", "jsonb", (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn("invoice_numbering", "text", (c) =>
      c
        .notNull()
        .defaultTo("customer")
        .check(sql`invoice_numbering IN ('customer','organization')`),
    )
    .addColumn("invoice_prefix", "text")
    .execute();

  await db.schema
    .createTable("personal_access_tokens")
    .addColumn("id", "uuid", (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn("token_hash", "char(64)", (c) => c.notNull().unique())
    .addColumn("comment", "text", (c) => c.notNull())
    .addColumn("revoked_at", "timestamptz")
    .execute();

  await db.schema
    .createTable("organization_access_tokens")
    .addColumn("id", "uuid", (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn("modified_at", "timestamptz")
    .addColumn("organization_id", "uuid", (c) => c.notNull().references("organizations.id").onDelete("cascade"))
    .addColumn("comment", "text", (c) => c.notNull())
    .addColumn("token_hash", "char(64)", (c) => c.notNull().unique())
    .addColumn("scopes", sql`text[]`, (c) => c.notNull())
    .addColumn("expires_at", "timestamptz")
    .addColumn("revoked_at", "timestamptz")
    .addColumn("last_used_at", "timestamptz")
    .execute();
  await db.schema
    .createIndex("organization_access_tokens_org_idx")
    .on("organization_access_tokens")
    .columns(["organization_id", "created_at"])
    .execute();

  await db.schema
    .createTable("products")
    .addColumn("id", "uuid", (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn("modified_at", "timestamptz")
    .addColumn("organization_id", "uuid", (c) => c.notNull().references("organizations.id").onDelete("cascade"))
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("description", "text")
    .addColumn("visibility", "text", (c) =>
      c
        .notNull()
        .defaultTo("public")
        .check(sql`visibility IN ('draft','private','public')`),
    )
    .addColumn("recurring_interval", "text", (c) => c.check(sql`recurring_interval IN ('day','week','month','year')`))
    .addColumn("recurring_interval_count", "integer")
    .addColumn("trial_interval", "text", (c) => c.check(sql`trial_interval IN ('day','week','month','year')`))
    .addColumn("trial_interval_count", "integer")
    .addColumn("meter_interval", "text")
    .addColumn("meter_interval_count", "integer")
    .addColumn("is_tax_applicable", "boolean", (c) => c.notNull().defaultTo(true))
    .addColumn("is_archived", "boolean", (c) => c.notNull().defaultTo(false))
    .addColumn("metadata", "jsonb", (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .execute();
  await db.schema.createIndex("products_org_idx").on("products").columns(["organization_id", "created_at"]).execute();

  await db.schema
    .createTable("product_prices")
    .addColumn("id", "uuid", (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn("modified_at", "timestamptz")
    .addColumn("organization_id", "uuid", (c) => c.notNull().references("organizations.id").onDelete("cascade"))
    .addColumn("product_id", "uuid", (c) => c.notNull().references("products.id").onDelete("cascade"))
    .addColumn("amount_type", "text", (c) => c.notNull().check(sql`amount_type IN ('fixed','custom','free','seat_based','metered_unit')`))
    .addColumn("price_currency", "text", (c) => c.notNull().defaultTo("usd"))
    .addColumn("price_amount", "bigint")
    .addColumn("minimum_amount", "bigint")
    .addColumn("maximum_amount", "bigint")
    .addColumn("preset_amount", "bigint")
    .addColumn("seat_tiers", "jsonb")
    .addColumn("unit_amount", "numeric")
    .addColumn("cap_amount", "bigint")
    .addColumn("meter_id", "uuid")
    .addColumn("meter_name", "text")
    .addColumn("tax_behavior", "text")
    .addColumn("is_archived", "boolean", (c) => c.notNull().defaultTo(false))
    .addColumn("position", "integer", (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .createIndex("product_prices_org_product_idx")
    .on("product_prices")
    .columns(["organization_id", "product_id", "position"])
    .execute();
  await db.schema.createIndex("product_prices_product_idx").on("product_prices").columns(["product_id", "position"]).execute();

  await db.schema
    .createTable("benefits")
    .addColumn("id", "uuid", (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn("modified_at", "timestamptz")
    .addColumn("organization_id", "uuid", (c) => c.notNull().references("organizations.id").onDelete("cascade"))
    .addColumn("type", "text", (c) => c.notNull())
    .addColumn("description", "text", (c) => c.notNull())
    .addColumn("selectable", "boolean", (c) => c.notNull().defaultTo(true))
    .addColumn("deletable", "boolean", (c) => c.notNull().defaultTo(true))
    .addColumn("is_deleted", "boolean", (c) => c.notNull().defaultTo(false))
    .addColumn("properties", "jsonb", (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn("metadata", "jsonb", (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .execute();
  await db.schema.createIndex("benefits_org_idx").on("benefits").columns(["organization_id", "created_at"]).execute();

  await db.schema
    .createTable("product_benefits")
    .addColumn("organization_id", "uuid", (c) => c.notNull().references("organizations.id").onDelete("cascade"))
    .addColumn("product_id", "uuid", (c) => c.notNull().references("products.id").onDelete("cascade"))
    .addColumn("benefit_id", "uuid", (c) => c.notNull().references("benefits.id").onDelete("cascade"))
    .addColumn("position", "integer", (c) => c.notNull().defaultTo(0))
    .addPrimaryKeyConstraint("product_benefits_pk", ["product_id", "benefit_id"])
    .execute();
  await db.schema.createIndex("product_benefits_org_idx").on("product_benefits").columns(["organization_id", "product_id"]).execute();

  await db.schema
    .createTable("product_medias")
    .addColumn("id", "uuid", (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn("modified_at", "timestamptz")
    .addColumn("organization_id", "uuid", (c) => c.notNull().references("organizations.id").onDelete("cascade"))
    .addColumn("product_id", "uuid", (c) => c.notNull().references("products.id").onDelete("cascade"))
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("path", "text", (c) => c.notNull())
    .addColumn("mime_type", "text", (c) => c.notNull())
    .addColumn("size", "bigint", (c) => c.notNull())
    .addColumn("checksum_sha256_base64", "text")
    .addColumn("checksum_sha256_hex", "text")
    .addColumn("public_url", "text", (c) => c.notNull())
    .addColumn("position", "integer", (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .createIndex("product_medias_org_product_idx")
    .on("product_medias")
    .columns(["organization_id", "product_id", "position"])
    .execute();

  await db.schema
    .createTable("discounts")
    .addColumn("id", "uuid", (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn("modified_at", "timestamptz")
    .addColumn("organization_id", "uuid", (c) => c.notNull().references("organizations.id").onDelete("cascade"))
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("code", "text")
    .addColumn("type", "text", (c) => c.notNull().check(sql`type IN ('fixed','percentage')`))
    .addColumn("duration", "text", (c) => c.notNull().check(sql`duration IN ('once','forever','repeating')`))
    .addColumn("duration_in_months", "integer")
    .addColumn("basis_points", "integer")
    .addColumn("amounts", "jsonb")
    .addColumn("starts_at", "timestamptz")
    .addColumn("ends_at", "timestamptz")
    .addColumn("max_redemptions", "integer")
    .addColumn("redemptions_count", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("metadata", "jsonb", (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn("deleted_at", "timestamptz")
    .addCheckConstraint(
      "discounts_shape",
      sql`(type = 'percentage' AND basis_points IS NOT NULL) OR (type = 'fixed' AND amounts IS NOT NULL)`,
    )
    .execute();
  await db.schema.createIndex("discounts_org_idx").on("discounts").columns(["organization_id", "created_at"]).execute();
  await sql`CREATE UNIQUE INDEX discounts_org_code_uq ON discounts (organization_id, lower(code)) WHERE code IS NOT NULL AND deleted_at IS NULL`.execute(
    db,
  );

  await db.schema
    .createTable("discount_products")
    .addColumn("organization_id", "uuid", (c) => c.notNull().references("organizations.id").onDelete("cascade"))
    .addColumn("discount_id", "uuid", (c) => c.notNull().references("discounts.id").onDelete("cascade"))
    .addColumn("product_id", "uuid", (c) => c.notNull().references("products.id").onDelete("cascade"))
    .addPrimaryKeyConstraint("discount_products_pk", ["discount_id", "product_id"])
    .execute();
  await db.schema.createIndex("discount_products_org_idx").on("discount_products").columns(["organization_id", "discount_id"]).execute();

  await sql`CREATE SEQUENCE customer_short_id_seq`.execute(db);
  await db.schema
    .createTable("customers")
    .addColumn("id", "uuid", (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn("modified_at", "timestamptz")
    .addColumn("organization_id", "uuid", (c) => c.notNull().references("organizations.id").onDelete("cascade"))
    .addColumn("short_id", "bigint", (c) => c.notNull().defaultTo(sql`nextval('customer_short_id_seq')`))
    .addColumn("type", "text", (c) =>
      c
        .notNull()
        .defaultTo("individual")
        .check(sql`type IN ('individual','team')`),
    )
    .addColumn("external_id", "text")
    .addColumn("email", "text", (c) => c.notNull())
    .addColumn("email_verified", "boolean", (c) => c.notNull().defaultTo(false))
    .addColumn("name", "text")
    .addColumn("billing_name", "text")
    .addColumn("billing_address", "jsonb")
    .addColumn("tax_id", "jsonb")
    .addColumn("locale", "text")
    .addColumn("avatar_url", "text")
    .addColumn("default_payment_method_id", "uuid")
    .addColumn("metadata", "jsonb", (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn("deleted_at", "timestamptz")
    .execute();
  await db.schema.createIndex("customers_org_idx").on("customers").columns(["organization_id", "created_at"]).execute();
  await sql`CREATE UNIQUE INDEX customers_org_email_uq ON customers (organization_id, lower(email)) WHERE deleted_at IS NULL`.execute(db);
  await sql`CREATE UNIQUE INDEX customers_org_external_id_uq ON customers (organization_id, external_id) WHERE external_id IS NOT NULL AND deleted_at IS NULL`.execute(
    db,
  );

  await db.schema
    .createTable("checkouts")
    .addColumn("id", "uuid", (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn("modified_at", "timestamptz")
    .addColumn("organization_id", "uuid", (c) => c.notNull().references("organizations.id").onDelete("cascade"))
    .addColumn("status", "text", (c) =>
      c
        .notNull()
        .defaultTo("open")
        .check(sql`status IN ('open','expired','confirmed','succeeded','failed')`),
    )
    .addColumn("client_secret", "text", (c) => c.notNull().unique())
    .addColumn("expires_at", "timestamptz", (c) => c.notNull())
    .addColumn("success_url", "text")
    .addColumn("return_url", "text")
    .addColumn("embed_origin", "text")
    .addColumn("currency", "text", (c) => c.notNull())
    .addColumn("amount", "bigint", (c) => c.notNull().defaultTo(0))
    .addColumn("discount_amount", "bigint", (c) => c.notNull().defaultTo(0))
    .addColumn("net_amount", "bigint", (c) => c.notNull().defaultTo(0))
    .addColumn("tax_amount", "bigint")
    .addColumn("tax_behavior", "text", (c) => c.check(sql`tax_behavior IN ('inclusive','exclusive')`))
    .addColumn("seats", "integer")
    .addColumn("min_seats", "integer")
    .addColumn("max_seats", "integer")
    .addColumn("allow_trial", "boolean")
    .addColumn("trial_interval", "text")
    .addColumn("trial_interval_count", "integer")
    .addColumn("trial_end", "timestamptz")
    .addColumn("product_id", "uuid", (c) => c.references("products.id"))
    .addColumn("product_price_id", "uuid", (c) => c.references("product_prices.id"))
    .addColumn("discount_id", "uuid", (c) => c.references("discounts.id"))
    .addColumn("allow_discount_codes", "boolean", (c) => c.notNull().defaultTo(true))
    .addColumn("require_billing_address", "boolean", (c) => c.notNull().defaultTo(false))
    .addColumn("customer_id", "uuid", (c) => c.references("customers.id"))
    .addColumn("external_customer_id", "text")
    .addColumn("is_business_customer", "boolean", (c) => c.notNull().defaultTo(false))
    .addColumn("customer_name", "text")
    .addColumn("customer_email", "text")
    .addColumn("customer_ip_address", "text")
    .addColumn("customer_billing_name", "text")
    .addColumn("customer_billing_address", "jsonb")
    .addColumn("customer_tax_id", "text")
    .addColumn("locale", "text")
    .addColumn("payment_method_type", "text")
    .addColumn("payment_processor_metadata", "jsonb", (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn("custom_field_data", "jsonb", (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn("metadata", "jsonb", (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn("customer_metadata", "jsonb", (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn("subscription_id", "uuid")
    .execute();
  await db.schema.createIndex("checkouts_org_idx").on("checkouts").columns(["organization_id", "created_at"]).execute();
  await sql`CREATE INDEX checkouts_open_expiry_idx ON checkouts (expires_at) WHERE status = 'open'`.execute(db);

  await db.schema
    .createTable("checkout_products")
    .addColumn("organization_id", "uuid", (c) => c.notNull().references("organizations.id").onDelete("cascade"))
    .addColumn("checkout_id", "uuid", (c) => c.notNull().references("checkouts.id").onDelete("cascade"))
    .addColumn("product_id", "uuid", (c) => c.notNull().references("products.id"))
    .addColumn("position", "integer", (c) => c.notNull())
    .addPrimaryKeyConstraint("checkout_products_pk", ["checkout_id", "product_id"])
    .execute();
  await db.schema.createIndex("checkout_products_org_idx").on("checkout_products").columns(["organization_id", "checkout_id"]).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of [
    "checkout_products",
    "checkouts",
    "customers",
    "discount_products",
    "discounts",
    "product_medias",
    "product_benefits",
    "benefits",
    "product_prices",
    "products",
    "organization_access_tokens",
    "personal_access_tokens",
    "organizations",
  ]) {
    await db.schema.dropTable(table).ifExists().execute();
  }
  await sql`DROP SEQUENCE IF EXISTS customer_short_id_seq`.execute(db);
}
