import type { Kysely } from "kysely";

/**
 * When invoice and receipt rendering were first requested. A request is recorded once, with the
 * job that renders the document, so concurrent requests enqueue one render between them.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable("orders")
    .addColumn("invoice_requested_at", "timestamptz")
    .addColumn("receipt_requested_at", "timestamptz")
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("orders").dropColumn("invoice_requested_at").dropColumn("receipt_requested_at").execute();
}
