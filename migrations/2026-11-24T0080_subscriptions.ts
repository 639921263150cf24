import { sql, type Kysely } from "kysely";

/**
 * Subscriptions: what a paid checkout of a recurring product creates, with the prices it bills
 * (amounts frozen at purchase, so a later catalog change never reprices a running subscription).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("subscriptions")
    .addColumn("id", "uuid", (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn("modified_at", "timestamptz")
    .addColumn("organization_id", "uuid", (c) => c.notNull().references("organizations.id").onDelete("cascade"))
    .addColumn("customer_id", "uuid", (c) => c.notNull().references("customers.id"))
    .addColumn("product_id", "uuid", (c) => c.notNull().references("products.id"))
    .addColumn("checkout_id", "uuid", (c) => c.references("checkouts.id"))
    .addColumn("discount_id", "uuid", (c) => c.references("discounts.id"))
    // The start of the first billed period: a discount's duration counts from it.
    .addColumn("discount_applied_at", "timestamptz")
    .addColumn("status", "text", (c) =>
      c.notNull().check(sql`status IN ('incomplete','incomplete_expired','trialing','active','past_due','canceled','unpaid','paused')`),
    )
    .addColumn("amount", "bigint", (c) => c.notNull())
    .addColumn("currency", "text", (c) => c.notNull())
    .addColumn("tax_behavior", "text")
    .addColumn("recurring_interval", "text", (c) => c.notNull().check(sql`recurring_interval IN ('day','week','month','year')`))
    .addColumn("recurring_interval_count", "integer", (c) => c.notNull().check(sql`recurring_interval_count >= 1`))
    // The day of month periods end on (clamped to shorter months): 31 January → 28/29 February → 31 March.
    .addColumn("anchor_day", "smallint", (c) => c.notNull().check(sql`anchor_day BETWEEN 1 AND 31`))
    .addColumn("current_period_start", "timestamptz", (c) => c.notNull())
    .addColumn("current_period_end", "timestamptz", (c) => c.notNull())
    .addColumn("trial_start", "timestamptz")
    .addColumn("trial_end", "timestamptz")
    .addColumn("cancel_at_period_end", "boolean", (c) => c.notNull().defaultTo(false))
    .addColumn("canceled_at", "timestamptz")
    .addColumn("started_at", "timestamptz")
    .addColumn("ends_at", "timestamptz")
    .addColumn("ended_at", "timestamptz")
    .addColumn("past_due_at", "timestamptz")
    .addColumn("pause_at_period_end", "boolean", (c) => c.notNull().defaultTo(false))
    .addColumn("paused_at", "timestamptz")
    .addColumn("resumes_at", "timestamptz")
    .addColumn("seats", "integer")
    .addColumn("customer_cancellation_reason", "text")
    .addColumn("customer_cancellation_comment", "text")
    .addColumn("metadata", "jsonb", (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn("custom_field_data", "jsonb", (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .execute();
  // The list's default order (-started_at) within an organization, and the customer's subscriptions.
  await db.schema
    .createIndex("subscriptions_org_started_idx")
    .on("subscriptions")
    .columns(["organization_id", "started_at", "id"])
    .execute();
  await db.schema.createIndex("subscriptions_customer_idx").on("subscriptions").columns(["customer_id", "status"]).execute();
  // The renewal sweep: billable subscriptions by the end of their period.
  await db.schema
    .createIndex("subscriptions_due_idx")
    .on("subscriptions")
    .columns(["current_period_end"])
    .where(sql.ref("status"), "in", ["trialing", "active", "past_due"])
    .execute();

  await db.schema
    .createTable("subscription_prices")
    .addColumn("subscription_id", "uuid", (c) => c.notNull().references("subscriptions.id").onDelete("cascade"))
    .addColumn("product_price_id", "uuid", (c) => c.notNull().references("product_prices.id"))
    .addColumn("organization_id", "uuid", (c) => c.notNull().references("organizations.id").onDelete("cascade"))
    // What the price bills per period, frozen at purchase (seats included); null for metered prices.
    .addColumn("amount", "bigint")
    .addColumn("position", "integer", (c) => c.notNull())
    .addPrimaryKeyConstraint("subscription_prices_pk", ["subscription_id", "product_price_id"])
    .execute();

  await db.schema
    .alterTable("orders")
    .addForeignKeyConstraint("orders_subscription_fk", ["subscription_id"], "subscriptions", ["id"])
    .execute();
  await db.schema.createIndex("orders_subscription_idx").on("orders").columns(["subscription_id", "created_at"]).execute();
  await db.schema
    .alterTable("checkouts")
    .addForeignKeyConstraint("checkouts_subscription_fk", ["subscription_id"], "subscriptions", ["id"])
    .execute();
  // A subscription's grants last as long as it does: revoking it revokes them.
  await db.schema
    .alterTable("benefit_grants")
    .addColumn("subscription_id", "uuid", (c) => c.references("subscriptions.id"))
    .execute();
  await db.schema.createIndex("benefit_grants_subscription_idx").on("benefit_grants").columns(["subscription_id"]).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("benefit_grants").dropColumn("subscription_id").execute();
  await db.schema.alterTable("checkouts").dropConstraint("checkouts_subscription_fk").execute();
  await db.schema.dropIndex("orders_subscription_idx").execute();
  await db.schema.alterTable("orders").dropConstraint("orders_subscription_fk").execute();
  await db.schema.dropTable("subscription_prices").execute();
  await db.schema.dropTable("subscriptions").execute();
}
