import type { Kysely } from "kysely";

/**
 * The credited units a closed period's usage charge subtracted (docs/decisions.md, "Metered billing:
 * credits"): late usage for that period is billed against the same credits, so credits are neither
 * used twice nor forgotten. Periods billed before credits counted subtracted none.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable("subscription_usage_charges")
    .addColumn("credited_units", "numeric", (c) => c.notNull().defaultTo(0))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("subscription_usage_charges").dropColumn("credited_units").execute();
}
