import { sql, type Kysely } from "kysely";

/**
 * Disputes (chargebacks) the card network opened on an order's payment, as the processor reports
 * them. One row per processor dispute (`processor_dispute_id`, unique: the upsert's key);
 * `processor_updated_at` is the instant of the processor event whose state the row holds, so an
 * older event delivered late never overwrites a newer state (docs/decisions.md, "Disputes"). Payments get
 * an index on their processor reference, which a dispute names.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("disputes")
    .addColumn("id", "uuid", (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn("modified_at", "timestamptz")
    .addColumn("organization_id", "uuid", (c) => c.notNull().references("organizations.id").onDelete("cascade"))
    .addColumn("order_id", "uuid", (c) => c.notNull().references("orders.id"))
    .addColumn("payment_id", "uuid", (c) => c.notNull().references("payments.id"))
    .addColumn("customer_id", "uuid", (c) => c.notNull().references("customers.id"))
    .addColumn("status", "text", (c) =>
      c.notNull().check(sql`status IN ('prevented','early_warning','needs_response','under_review','lost','won')`),
    )
    .addColumn("amount", "bigint", (c) => c.notNull().check(sql`amount >= 0`))
    .addColumn("tax_amount", "bigint", (c) => c.notNull().check(sql`tax_amount >= 0`))
    .addColumn("currency", "text", (c) => c.notNull())
    .addColumn("reason", "text")
    .addColumn("evidence_due_by", "timestamptz")
    .addColumn("processor_dispute_id", "text", (c) => c.notNull().unique())
    .addColumn("processor_updated_at", "timestamptz", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("disputes_organization_created_idx").on("disputes").columns(["organization_id", "created_at"]).execute();
  await db.schema.createIndex("disputes_order_idx").on("disputes").column("order_id").execute();
  // A processor's dispute names the charge: its events find the payment by that reference.
  await db.schema.createIndex("payments_processor_reference_idx").on("payments").column("processor_reference").execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex("payments_processor_reference_idx").execute();
  await db.schema.dropTable("disputes").execute();
}
