import { sql, type Kysely } from "kysely";

/**
 * The processor's customer of each buyer (Stripe's `cus_…`), made on their first payment and
 * reused after, so saved cards stay together: `customers.processor_customer_reference`. A saved
 * method keeps the processor customer it is attached to (`payment_methods.processor_customer_reference`),
 * which Stripe needs beside the method to charge it off-session. Null for the sandbox processor.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE customers ADD COLUMN processor_customer_reference text`.execute(db);
  await sql`ALTER TABLE payment_methods ADD COLUMN processor_customer_reference text`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE payment_methods DROP COLUMN processor_customer_reference`.execute(db);
  await sql`ALTER TABLE customers DROP COLUMN processor_customer_reference`.execute(db);
}
