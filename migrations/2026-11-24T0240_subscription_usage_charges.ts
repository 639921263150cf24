import { sql, type Kysely } from "kysely";

/**
 * What each closed period of a subscription was charged for its metered prices (docs/decisions.md,
 * "Metered billing"): the quantity read at billing and the amount charged for it, one row per
 * subscription, price and period. A later renewal re-reads the quantity of the periods it holds and
 * bills what arrived late as the difference, so nothing is charged twice or lost.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("subscription_usage_charges")
    .addColumn("id", "uuid", (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn("created_at", "timestamptz", (c) => c.notNull())
    .addColumn("modified_at", "timestamptz")
    .addColumn("organization_id", "uuid", (c) => c.notNull().references("organizations.id").onDelete("cascade"))
    .addColumn("subscription_id", "uuid", (c) => c.notNull().references("subscriptions.id").onDelete("cascade"))
    .addColumn("product_price_id", "uuid", (c) => c.notNull().references("product_prices.id"))
    .addColumn("period_start", "timestamptz", (c) => c.notNull())
    .addColumn("period_end", "timestamptz", (c) => c.notNull())
    .addColumn("quantity", "numeric", (c) => c.notNull())
    .addColumn("amount", "bigint", (c) => c.notNull())
    .addUniqueConstraint("subscription_usage_charges_period_key", ["subscription_id", "product_price_id", "period_start"])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("subscription_usage_charges").execute();
}
