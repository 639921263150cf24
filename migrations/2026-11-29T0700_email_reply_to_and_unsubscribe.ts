import { sql, type Kysely } from "kysely";

/**
 * The two headers an email's audience decides: `Reply-To` (a customer's answer goes to the seller's
 * address, not to the sending address) and `List-Unsubscribe` (on notices, not on receipts or
 * sign-in codes). Both fixed when the row is written, like the `Message-ID`.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE emails ADD COLUMN reply_to text, ADD COLUMN list_unsubscribe text`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE emails DROP COLUMN reply_to, DROP COLUMN list_unsubscribe`.execute(db);
}
