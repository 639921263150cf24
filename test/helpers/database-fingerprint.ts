import { sql } from "kysely";
import type { TestContext } from "./context.ts";

/**
 * Tables a refused request may legitimately write: `idempotency_keys` keeps the first answer to a
 * keyed request, refusals included (a retry must replay the same 4xx).
 */
const WRITTEN_BY_REFUSALS = new Set(["public.idempotency_keys"]);

/**
 * Per table, its row count and the newest row version (`xmin`, the transaction that wrote it): an
 * insert or delete moves the count, an update the version. One statement over every table of the
 * application's and the job queue's schemas.
 */
export async function databaseFingerprinter(ctx: TestContext): Promise<() => Promise<Record<string, string>>> {
  const tables = await sql<{ name: string }>`
    SELECT table_schema || '.' || table_name AS name FROM information_schema.tables
    WHERE table_schema IN ('public', 'graphile_worker') AND table_type = 'BASE TABLE'
    ORDER BY 1`.execute(ctx.database.db);
  const watched = tables.rows.map((row) => row.name).filter((name) => !WRITTEN_BY_REFUSALS.has(name));
  const columns = watched.map((name) => {
    const [schema, table] = name.split(".") as [string, string];
    return sql`(SELECT count(*) || '@' || coalesce(max(xmin::text::bigint), 0) FROM ${sql.table(`${schema}.${table}`)}) AS ${sql.id(name)}`;
  });
  const statement = sql<Record<string, string>>`SELECT ${sql.join(columns)}`;
  return async () => (await statement.execute(ctx.database.db)).rows[0]!;
}

/** The tables whose fingerprint differs. */
export function changedTables(before: Record<string, string>, after: Record<string, string>): string[] {
  return Object.keys(after).filter((table) => before[table] !== after[table]);
}
