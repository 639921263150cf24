import { sql, type Kysely } from "kysely";

/**
 * What a completed checkout writes, besides its customer session (created by the 0030 migration):
 * orders and their items, invoice/receipt counters, benefit grants and license keys.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("orders")
    .addColumn("id", "uuid", (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn("modified_at", "timestamptz")
    .addColumn("organization_id", "uuid", (c) => c.notNull().references("organizations.id").onDelete("cascade"))
    .addColumn("customer_id", "uuid", (c) => c.notNull().references("customers.id"))
    .addColumn("product_id", "uuid", (c) => c.references("products.id"))
    .addColumn("discount_id", "uuid", (c) => c.references("discounts.id"))
    .addColumn("subscription_id", "uuid")
    .addColumn("checkout_id", "uuid", (c) => c.references("checkouts.id"))
    .addColumn("status", "text", (c) => c.notNull().check(sql`status IN ('draft','pending','paid','refunded','partially_refunded','void')`))
    .addColumn("billing_reason", "text", (c) =>
      c
        .notNull()
        .check(
          sql`billing_reason IN ('purchase','subscription_create','subscription_cycle','subscription_update','subscription_meter_cycle')`,
        ),
    )
    .addColumn("subtotal_amount", "bigint", (c) => c.notNull())
    .addColumn("discount_amount", "bigint", (c) => c.notNull().defaultTo(0))
    .addColumn("net_amount", "bigint", (c) => c.notNull())
    .addColumn("tax_amount", "bigint", (c) => c.notNull().defaultTo(0))
    .addColumn("total_amount", "bigint", (c) => c.notNull())
    .addColumn("applied_balance_amount", "bigint", (c) => c.notNull().defaultTo(0))
    .addColumn("refunded_amount", "bigint", (c) => c.notNull().defaultTo(0))
    .addColumn("refunded_tax_amount", "bigint", (c) => c.notNull().defaultTo(0))
    .addColumn("platform_fee_amount", "bigint", (c) => c.notNull().defaultTo(0))
    .addColumn("platform_fee_currency", "text")
    .addColumn("currency", "text", (c) => c.notNull())
    .addColumn("billing_name", "text")
    .addColumn("billing_address", "jsonb")
    .addColumn("tax_id", "jsonb")
    .addColumn("invoice_number", "text")
    .addColumn("invoice_path", "text")
    .addColumn("invoice_checksum", "text")
    .addColumn("receipt_number", "text")
    .addColumn("receipt_path", "text")
    .addColumn("description", "text", (c) => c.notNull())
    .addColumn("seats", "integer")
    .addColumn("next_payment_attempt_at", "timestamptz")
    .addColumn("payment_reference", "text")
    .addColumn("metadata", "jsonb", (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn("custom_field_data", "jsonb", (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .execute();
  await db.schema.createIndex("orders_org_idx").on("orders").columns(["organization_id", "created_at"]).execute();
  await db.schema.createIndex("orders_org_customer_idx").on("orders").columns(["organization_id", "customer_id", "created_at"]).execute();
  await db.schema.createIndex("orders_org_product_idx").on("orders").columns(["organization_id", "product_id"]).execute();
  await db.schema
    .createIndex("orders_org_invoice_number_uq")
    .on("orders")
    .columns(["organization_id", "invoice_number"])
    .unique()
    .execute();
  await db.schema
    .createIndex("orders_org_customer_receipt_number_uq")
    .on("orders")
    .columns(["organization_id", "customer_id", "receipt_number"])
    .unique()
    .execute();
  // A checkout completes into at most one order, whatever races the confirm.
  await db.schema.createIndex("orders_org_checkout_uq").on("orders").columns(["organization_id", "checkout_id"]).unique().execute();

  await db.schema
    .createTable("order_items")
    .addColumn("id", "uuid", (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn("modified_at", "timestamptz")
    .addColumn("organization_id", "uuid", (c) => c.notNull().references("organizations.id").onDelete("cascade"))
    .addColumn("order_id", "uuid", (c) => c.notNull().references("orders.id").onDelete("cascade"))
    .addColumn("label", "text", (c) => c.notNull())
    .addColumn("amount", "bigint", (c) => c.notNull())
    .addColumn("tax_amount", "bigint", (c) => c.notNull().defaultTo(0))
    .addColumn("proration", "boolean", (c) => c.notNull().defaultTo(false))
    .addColumn("product_price_id", "uuid", (c) => c.references("product_prices.id"))
    .addColumn("position", "integer", (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.createIndex("order_items_org_order_idx").on("order_items").columns(["organization_id", "order_id", "position"]).execute();

  // Gap-free numbering: one row per (subject, kind), bumped by UPDATE … RETURNING inside the
  // transaction that uses the number, so a rollback gives the number back.
  await db.schema
    .createTable("billing_counters")
    .addColumn("organization_id", "uuid", (c) => c.notNull().references("organizations.id").onDelete("cascade"))
    .addColumn("subject_id", "uuid", (c) => c.notNull())
    .addColumn("kind", "text", (c) => c.notNull().check(sql`kind IN ('invoice','receipt')`))
    .addColumn("value", "integer", (c) => c.notNull())
    .addPrimaryKeyConstraint("billing_counters_pk", ["subject_id", "kind"])
    .execute();
  await db.schema.createIndex("billing_counters_org_idx").on("billing_counters").columns(["organization_id", "subject_id"]).execute();

  await db.schema
    .createTable("benefit_grants")
    .addColumn("id", "uuid", (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn("modified_at", "timestamptz")
    .addColumn("organization_id", "uuid", (c) => c.notNull().references("organizations.id").onDelete("cascade"))
    .addColumn("customer_id", "uuid", (c) => c.notNull().references("customers.id"))
    .addColumn("benefit_id", "uuid", (c) => c.notNull().references("benefits.id"))
    .addColumn("order_id", "uuid", (c) => c.references("orders.id"))
    .addColumn("granted_at", "timestamptz")
    .addColumn("revoked_at", "timestamptz")
    .addColumn("properties", "jsonb", (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .execute();
  await db.schema
    .createIndex("benefit_grants_org_customer_idx")
    .on("benefit_grants")
    .columns(["organization_id", "customer_id", "benefit_id"])
    .execute();
  await db.schema
    .createIndex("benefit_grants_org_order_benefit_uq")
    .on("benefit_grants")
    .columns(["organization_id", "order_id", "benefit_id"])
    .unique()
    .execute();

  await db.schema
    .createTable("license_keys")
    .addColumn("id", "uuid", (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn("modified_at", "timestamptz")
    .addColumn("deleted_at", "timestamptz")
    .addColumn("organization_id", "uuid", (c) => c.notNull().references("organizations.id").onDelete("cascade"))
    .addColumn("customer_id", "uuid", (c) => c.notNull().references("customers.id"))
    .addColumn("benefit_id", "uuid", (c) => c.notNull().references("benefits.id"))
    .addColumn("key", "text", (c) => c.notNull())
    .addColumn("status", "text", (c) =>
      c
        .notNull()
        .defaultTo("granted")
        .check(sql`status IN ('granted','revoked','disabled')`),
    )
    .addColumn("limit_activations", "integer")
    .addColumn("limit_usage", "integer")
    .addColumn("usage", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("validations", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("last_validated_at", "timestamptz")
    .addColumn("expires_at", "timestamptz")
    .execute();
  await db.schema.createIndex("license_keys_org_key_uq").on("license_keys").columns(["organization_id", "key"]).unique().execute();
  await db.schema
    .createIndex("license_keys_org_customer_idx")
    .on("license_keys")
    .columns(["organization_id", "customer_id", "benefit_id"])
    .execute();

  await db.schema
    .createTable("license_key_activations")
    .addColumn("id", "uuid", (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn("modified_at", "timestamptz")
    .addColumn("deleted_at", "timestamptz")
    .addColumn("organization_id", "uuid", (c) => c.notNull().references("organizations.id").onDelete("cascade"))
    .addColumn("license_key_id", "uuid", (c) => c.notNull().references("license_keys.id").onDelete("cascade"))
    .addColumn("label", "text", (c) => c.notNull())
    .addColumn("conditions", "jsonb", (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn("meta", "jsonb", (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .execute();
  await db.schema
    .createIndex("license_key_activations_org_key_idx")
    .on("license_key_activations")
    .columns(["organization_id", "license_key_id"])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ["license_key_activations", "license_keys", "benefit_grants", "billing_counters", "order_items", "orders"]) {
    await db.schema.dropTable(table).ifExists().execute();
  }
}
