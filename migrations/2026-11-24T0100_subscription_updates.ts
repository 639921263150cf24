import { sql, type Kysely } from "kysely";

/**
 * What a subscription change leaves for later: proration entries (credits and debits billed with
 * the next renewal, or at once when the change is invoiced) and a change scheduled for the period
 * end (`proration_behavior: next_period`).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("subscription_billing_entries")
    .addColumn("id", "uuid", (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn("organization_id", "uuid", (c) => c.notNull().references("organizations.id").onDelete("cascade"))
    .addColumn("subscription_id", "uuid", (c) => c.notNull().references("subscriptions.id").onDelete("cascade"))
    .addColumn("product_price_id", "uuid", (c) => c.references("product_prices.id"))
    .addColumn("label", "text", (c) => c.notNull())
    // Positive: a debit (owed); negative: a credit.
    .addColumn("amount", "bigint", (c) => c.notNull())
    // The order that billed it; null while it waits for one.
    .addColumn("order_id", "uuid", (c) => c.references("orders.id"))
    .execute();
  await db.schema
    .createIndex("subscription_billing_entries_unbilled_idx")
    .on("subscription_billing_entries")
    .column("subscription_id")
    .where(sql.ref("order_id"), "is", null)
    .execute();
  await db.schema.alterTable("subscriptions").addColumn("pending_update", "jsonb").execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("subscriptions").dropColumn("pending_update").execute();
  await db.schema.dropTable("subscription_billing_entries").execute();
}
