import { sql } from "kysely";
import type { Executor } from "../../src/db/database.ts";

/**
 * The columns of a public table other than `overridden`, in their order: what a test copies from a
 * template row when it writes many rows that differ only in the overridden columns.
 */
export async function columnsBesides(db: Executor, table: string, overridden: readonly string[]): Promise<string[]> {
  const { rows } = await sql<{ column_name: string }>`SELECT column_name FROM information_schema.columns
    WHERE table_schema = 'public' AND table_name = ${table} ORDER BY ordinal_position`.execute(db);
  return rows.map((row) => row.column_name).filter((name) => !overridden.includes(name));
}
