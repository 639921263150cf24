import { sql, type Kysely } from "kysely";

/** A declined payment's decline code as the processor gave it (`lost_card`, `insufficient_funds`, …): the Payment's `decline_reason`. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE payments ADD COLUMN decline_reason text`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE payments DROP COLUMN decline_reason`.execute(db);
}
