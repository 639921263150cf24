import { sql, type Kysely } from "kysely";

/**
 * What the seller's documents print about it: the registered name (the reference's
 * `legal_entity.registered_name`), the postal address, and the tax registrations.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable("organizations")
    .addColumn("legal_name", "text")
    .addColumn("legal_address", "jsonb")
    .addColumn("tax_registrations", "jsonb", (c) => c.notNull().defaultTo(sql`'[]'::jsonb`))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable("organizations")
    .dropColumn("legal_name")
    .dropColumn("legal_address")
    .dropColumn("tax_registrations")
    .execute();
}
