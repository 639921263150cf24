import type { SelectQueryBuilder } from "kysely";

/** How many rows a query matches: `count(*)` over its FROM and WHERE (PostgreSQL returns it as text). */
export async function countRows<DB, TB extends keyof DB, O>(query: SelectQueryBuilder<DB, TB, O>): Promise<number> {
  const row = await query
    .clearSelect()
    .select((eb) => eb.fn.countAll<string>().as("count"))
    // Kysely cannot name the selection through the generic tables; the shape is the one selected.
    .$castTo<{ count: string }>()
    .executeTakeFirstOrThrow();
  return Number(row.count);
}
