import { sql } from "kysely";
import type { Executor } from "../../db/database.ts";

/**
 * Orders an organization's ingest against its cuts (a meter's creation or new definition, an
 * aggregation's range): ingest holds the shared lock from before it dates its events to its
 * commit, a cut takes the exclusive one. Once that is granted, every event dated before the cut's
 * clock is committed, and every event dated after it is ingested after it: a range of
 * `ingested_at` closed by a cut never gains an event.
 */
const lockKey = (organizationId: string) => sql`hashtextextended(${`meters:${organizationId}`}, 0)`;

export async function lockIngestShared(db: Executor, organizationIds: readonly string[]): Promise<void> {
  for (const id of [...new Set(organizationIds)].sort()) await sql`SELECT pg_advisory_xact_lock_shared(${lockKey(id)})`.execute(db);
}

export async function lockIngestExclusive(db: Executor, organizationId: string): Promise<void> {
  await sql`SELECT pg_advisory_xact_lock(${lockKey(organizationId)})`.execute(db);
}

/** The instant, after the exclusive lock, that closes a range of `ingested_at` (see the locks above). */
export async function cutInstant(db: Executor): Promise<Date> {
  const { rows } = await sql<{ at: Date }>`SELECT clock_timestamp() AS at`.execute(db);
  return rows[0]!.at;
}
