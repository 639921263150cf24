import { sql, type Kysely } from "kysely";

/**
 * Rate-limit counters shared by every process (`RATE_LIMIT_STORE=postgres`, src/http/rate-limit.ts):
 * one fixed window per bucket. UNLOGGED: a counter is worth less than the WAL it would cost on
 * every limited request, and after a crash PostgreSQL empties the table, which only opens every
 * window afresh. Never replicated, so never read from a replica.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE UNLOGGED TABLE rate_limit_counters (
      key text PRIMARY KEY,
      count integer NOT NULL,
      window_ends_at timestamptz NOT NULL
    )
  `.execute(db);
  await db.schema.createIndex("rate_limit_counters_window_ends_at_idx").on("rate_limit_counters").column("window_ends_at").execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("rate_limit_counters").execute();
}
