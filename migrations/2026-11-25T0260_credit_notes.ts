import { sql, type Kysely } from "kysely";

/**
 * Credit notes: one per succeeded refund of an order whose invoice exists, numbered in a sequence
 * of their own (the `credit_note` counter of `billing_counters`, allocated in the transaction that
 * issues the note, so a rollback gives the number back). The note keeps what the refund recorded
 * (amount, tax, date), so its render needs only the note and its order.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE billing_counters DROP CONSTRAINT billing_counters_kind_check`.execute(db);
  await sql`ALTER TABLE billing_counters ADD CONSTRAINT billing_counters_kind_check CHECK (kind IN ('invoice','receipt','credit_note'))`.execute(
    db,
  );
  await db.schema
    .createTable("credit_notes")
    .addColumn("id", "uuid", (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn("created_at", "timestamptz", (c) => c.notNull())
    .addColumn("organization_id", "uuid", (c) => c.notNull().references("organizations.id").onDelete("cascade"))
    .addColumn("order_id", "uuid", (c) => c.notNull().references("orders.id"))
    .addColumn("refund_id", "uuid", (c) => c.notNull().unique().references("refunds.id"))
    .addColumn("number", "text", (c) => c.notNull())
    .addColumn("refunded_at", "timestamptz", (c) => c.notNull())
    .addColumn("amount", "bigint", (c) => c.notNull().check(sql`amount > 0`))
    .addColumn("tax_amount", "bigint", (c) => c.notNull().check(sql`tax_amount >= 0`))
    .addColumn("currency", "text", (c) => c.notNull())
    .addColumn("path", "text")
    .addColumn("checksum", "text")
    .addUniqueConstraint("credit_notes_organization_number_key", ["organization_id", "number"])
    .execute();
  await db.schema.createIndex("credit_notes_order_idx").on("credit_notes").column("order_id").execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("credit_notes").execute();
  await sql`DELETE FROM billing_counters WHERE kind = 'credit_note'`.execute(db);
  await sql`ALTER TABLE billing_counters DROP CONSTRAINT billing_counters_kind_check`.execute(db);
  await sql`ALTER TABLE billing_counters ADD CONSTRAINT billing_counters_kind_check CHECK (kind IN ('invoice','receipt'))`.execute(db);
}
