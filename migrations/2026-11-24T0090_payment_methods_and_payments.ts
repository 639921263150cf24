import { sql, type Kysely } from "kysely";

/**
 * Saved payment methods (what renewals charge off-session) and payments (every attempt to take an
 * order's money, successful or not: what dunning counts and the portal's payment status reads).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("payment_methods")
    .addColumn("id", "uuid", (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn("modified_at", "timestamptz")
    .addColumn("organization_id", "uuid", (c) => c.notNull().references("organizations.id").onDelete("cascade"))
    .addColumn("customer_id", "uuid", (c) => c.notNull().references("customers.id"))
    // The processor's handle of the method; never card data.
    .addColumn("processor_reference", "text", (c) => c.notNull())
    .addColumn("type", "text", (c) => c.notNull())
    .addColumn("brand", "text")
    .addColumn("last4", "text")
    .addColumn("exp_month", "integer")
    .addColumn("exp_year", "integer")
    .addColumn("deleted_at", "timestamptz")
    .execute();
  await db.schema.createIndex("payment_methods_customer_idx").on("payment_methods").columns(["customer_id", "created_at"]).execute();
  await db.schema
    .alterTable("subscriptions")
    .addColumn("payment_method_id", "uuid", (c) => c.references("payment_methods.id"))
    .execute();

  await db.schema
    .createTable("payments")
    .addColumn("id", "uuid", (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn("modified_at", "timestamptz")
    .addColumn("organization_id", "uuid", (c) => c.notNull().references("organizations.id").onDelete("cascade"))
    .addColumn("customer_id", "uuid", (c) => c.notNull().references("customers.id"))
    .addColumn("order_id", "uuid", (c) => c.notNull().references("orders.id"))
    .addColumn("payment_method_id", "uuid", (c) => c.references("payment_methods.id"))
    .addColumn("status", "text", (c) => c.notNull().check(sql`status IN ('pending','succeeded','failed')`))
    // What started the attempt: the purchase, a renewal, a dunning retry or the customer's own retry.
    .addColumn("trigger", "text", (c) =>
      c.notNull().check(sql`trigger IN ('purchase','subscription_cycle','retry_dunning','retry_customer')`),
    )
    .addColumn("amount", "bigint", (c) => c.notNull())
    .addColumn("currency", "text", (c) => c.notNull())
    .addColumn("processor_reference", "text")
    .addColumn("decline_message", "text")
    .execute();
  await db.schema.createIndex("payments_order_idx").on("payments").columns(["order_id", "created_at"]).execute();
  // Dunning retries: pending orders by their next attempt.
  await db.schema
    .createIndex("orders_next_payment_attempt_idx")
    .on("orders")
    .column("next_payment_attempt_at")
    .where(sql.ref("status"), "=", "pending")
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex("orders_next_payment_attempt_idx").execute();
  await db.schema.dropTable("payments").execute();
  await db.schema.alterTable("subscriptions").dropColumn("payment_method_id").execute();
  await db.schema.dropTable("payment_methods").execute();
}
