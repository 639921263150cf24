import { sql, type Kysely } from "kysely";

/** The sandbox test clock: how far each organization's time is ahead of real time. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable("organizations")
    .addColumn("clock_offset_ms", "bigint", (c) =>
      c
        .notNull()
        .defaultTo(0)
        .check(sql`clock_offset_ms >= 0`),
    )
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("organizations").dropColumn("clock_offset_ms").execute();
}
