import { sql, type Expression, type RawBuilder } from "kysely";
import type { Executor } from "../../db/database.ts";

// The events by ingest instant, through `events (organization_id, ingested_at)`: what the meters'
// aggregation scans and looks up, inside its own statements (meters/meter-dependent-reads.ts).

/** The events table as a FROM item; the caller names its alias and its conditions. */
export const eventRows: RawBuilder<unknown> = sql`events`;

/** The ingest instant of the organization's event `offset` events into [`from`, `until`), a scalar subquery (null when fewer). */
export const ingestedAtAfter = (organizationId: string, from: Date, until: Date, offset: number) => sql<Date | null>`(
    SELECT e.ingested_at FROM events e WHERE e.organization_id = ${organizationId}::uuid AND e.ingested_at >= ${from} AND e.ingested_at < ${until}
    ORDER BY e.ingested_at OFFSET ${offset} LIMIT 1
  )`;

/** One row when the organization has an event ingested at or after `since`, none else: one index probe (a LATERAL source). */
export const eventIngestedSince = (organizationId: Expression<string>, since: Expression<Date>) =>
  sql`SELECT 1 FROM events e WHERE e.organization_id = ${organizationId} AND e.ingested_at >= ${since} LIMIT 1`;

/** Whether the organization has stored any event before `cut` (else a new meter has nothing to back-fill). */
export async function organizationHasEventsBefore(db: Executor, organizationId: string, cut: Date): Promise<boolean> {
  const row = await db
    .selectFrom("events")
    .select("id")
    .where("organization_id", "=", organizationId)
    .where("ingested_at", "<", cut)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}
