import type { Kysely } from "kysely";

/** A customer's avatar is computed from the email on read (customers.mapper.ts); nothing stores it. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("customers").dropColumn("avatar_url").execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("customers").addColumn("avatar_url", "text").execute();
}
