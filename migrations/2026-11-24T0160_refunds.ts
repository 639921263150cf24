import { sql, type Kysely } from "kysely";

/**
 * Refunds of an order's payment: each one a part of the order's net amount and its tax share, as
 * the processor settled it. The order keeps the running totals (`refunded_amount`,
 * `refunded_tax_amount`), updated in the refund's transaction under the order's row lock.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("refunds")
    .addColumn("id", "uuid", (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn("modified_at", "timestamptz")
    .addColumn("organization_id", "uuid", (c) => c.notNull().references("organizations.id").onDelete("cascade"))
    .addColumn("order_id", "uuid", (c) => c.notNull().references("orders.id"))
    .addColumn("subscription_id", "uuid", (c) => c.references("subscriptions.id"))
    .addColumn("customer_id", "uuid", (c) => c.notNull().references("customers.id"))
    // The payment whose money goes back.
    .addColumn("payment_id", "uuid", (c) => c.notNull().references("payments.id"))
    .addColumn("status", "text", (c) => c.notNull().check(sql`status IN ('pending','succeeded','failed','canceled')`))
    .addColumn("reason", "text", (c) => c.notNull())
    .addColumn("amount", "bigint", (c) => c.notNull().check(sql`amount > 0`))
    .addColumn("tax_amount", "bigint", (c) => c.notNull().check(sql`tax_amount >= 0`))
    .addColumn("currency", "text", (c) => c.notNull())
    .addColumn("comment", "text")
    .addColumn("revoke_benefits", "boolean", (c) => c.notNull())
    .addColumn("metadata", "jsonb", (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn("processor_reference", "text")
    .addColumn("failure_message", "text")
    .execute();
  await db.schema.createIndex("refunds_organization_created_idx").on("refunds").columns(["organization_id", "created_at"]).execute();
  await db.schema.createIndex("refunds_order_idx").on("refunds").column("order_id").execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("refunds").execute();
}
