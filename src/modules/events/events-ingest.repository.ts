import { sql } from "kysely";
import type { Executor } from "../../db/database.ts";
import type { JsonValue } from "../../db/json.ts";
import { arrayElements } from "../../db/array-literal.ts";
import { mapSlices } from "../../values/slices.ts";

// The write side of events: batches inserted with their duplicates skipped.

/** One event ready to store; `timestamp` as ISO text. */
export interface EventInsert {
  organization_id: string;
  customer_id: string | null;
  external_customer_id: string | null;
  member_id: string | null;
  external_member_id: string | null;
  name: string;
  timestamp: string;
  external_id: string | null;
  parent_id: string | null;
  metadata: Record<string, JsonValue>;
}

/** Holds each organization's external ids once, across every partition of `events`. */
const EXTERNAL_ID_KEY = "event_external_ids_pkey";

export const isExternalIdConflict = (error: unknown): boolean =>
  typeof error === "object" &&
  error !== null &&
  "code" in error &&
  error.code === "23505" &&
  "constraint" in error &&
  error.constraint === EXTERNAL_ID_KEY;

/** Columns sent per batch as array literals, in the order of the `unnest`s below; `metadata` follows as one JSON array. */
const ARRAY_COLUMNS = [
  "organization_id",
  "customer_id",
  "external_customer_id",
  "member_id",
  "external_member_id",
  "name",
  "timestamp",
  "external_id",
  "parent_id",
] as const;

/**
 * Ten bind parameters whatever the batch size: one array literal per column, and the metadata as one
 * JSON array. One `JSON.stringify` of the slice's metadata is about four times cheaper than a JSON
 * text per event escaped into a `jsonb[]` literal, and PostgreSQL reads both at the same cost.
 */
async function columnArrays(rows: readonly EventInsert[]): Promise<string[]> {
  // Per slice, each parameter's elements without their brackets, joined below across the slices.
  const slices = await mapSlices(rows, (slice) => [
    ...ARRAY_COLUMNS.map((column) => arrayElements(slice, (row) => row[column])),
    JSON.stringify(slice.map((row) => row.metadata)).slice(1, -1),
  ]);
  const elements = (parameter: number) => slices.map((pieces) => pieces[parameter]!).join(",");
  return [...ARRAY_COLUMNS.map((_, i) => `{${elements(i)}}`), `[${elements(ARRAY_COLUMNS.length)}]`];
}

/** A batch's rows as one literal per column (`prepareEventColumns`). */
export type EventColumns = readonly string[];
export const prepareEventColumns = columnArrays;

/**
 * Inserts a whole batch in one statement, and returns how many rows were inserted. Rows travel as
 * one array per column (`unnest`, zipped by `ROWS FROM`), which PostgreSQL reads at about half the
 * cost of one JSON document of whole events.
 *
 * The batch's external ids are claimed in `event_external_ids` by the same statement: `events` is
 * partitioned, so no index of its own can keep an external id unique across partitions (docs/decisions.md,
 * "Events partitioned by month"). The plain claim is tried first (`skipDuplicates` false): `ON
 * CONFLICT` makes every row a speculative insertion, which measured 15–40% slower, and a batch of new
 * events (the common case) has no conflict. On a conflict (`isExternalIdConflict`) the statement has
 * changed nothing and the caller sends the batch again with `ON CONFLICT DO NOTHING`: the claims that
 * return are the new events, and only those are inserted. Concurrent batches carrying the same
 * external id wait on each other's key, so each id is claimed exactly once; claims go in ordered by
 * that key so that two batches sharing ids lock them in the same order and cannot deadlock.
 *
 * `ingested_at` is the clock once for the batch, read after the caller took the organizations'
 * shared ingest lock: the meters aggregate the events by it, after their commit
 * (meter-aggregates.repository.ts).
 */
export async function insertEvents(db: Executor, columns: EventColumns, skipDuplicates: boolean): Promise<number> {
  const [
    organizationIds,
    customerIds,
    externalCustomerIds,
    memberIds,
    externalMemberIds,
    names,
    timestamps,
    externalIds,
    parentIds,
    metadata,
  ] = columns;
  const claims = sql`batch AS (
      SELECT gen_random_uuid() AS id, u.*
      FROM ROWS FROM (
        unnest(${organizationIds}::uuid[]), unnest(${customerIds}::uuid[]), unnest(${externalCustomerIds}::text[]), unnest(${memberIds}::uuid[]),
        unnest(${externalMemberIds}::text[]), unnest(${names}::text[]), unnest(${timestamps}::timestamptz[]), unnest(${externalIds}::text[]),
        unnest(${parentIds}::text[]), jsonb_array_elements(${metadata}::jsonb)
      ) AS u(organization_id, customer_id, external_customer_id, member_id, external_member_id, name, "timestamp", external_id, parent_id, metadata)
    ), claimed AS (
      INSERT INTO event_external_ids (organization_id, external_id)
      SELECT organization_id, external_id FROM batch WHERE external_id IS NOT NULL ORDER BY organization_id, external_id
      ${skipDuplicates ? sql`ON CONFLICT DO NOTHING RETURNING organization_id, external_id` : sql``}
    )`;
  const insert = sql`
    INSERT INTO events (id, ingested_at, organization_id, customer_id, external_customer_id, member_id, external_member_id, name, "timestamp", external_id, parent_id, root_id, metadata)
    SELECT r.id, (SELECT clock_timestamp()), r.organization_id, r.customer_id, r.external_customer_id, r.member_id, r.external_member_id, r.name, r."timestamp",
           r.external_id, r.parent_id, CASE WHEN r.parent_id IS NULL THEN r.id END, r.metadata
    FROM batch r
    ${skipDuplicates ? sql`WHERE r.external_id IS NULL OR (r.organization_id, r.external_id) IN (SELECT organization_id, external_id FROM claimed)` : sql``}`;
  return Number((await sql`WITH ${claims} ${insert}`.execute(db)).numAffectedRows ?? 0n);
}

/**
 * The event types of a batch's names not seen before in their organization, labelled with the
 * name. Names already known (nearly always) are filtered out first, so the common batch makes no
 * speculative insertion; `ON CONFLICT` covers a concurrent batch introducing the same name.
 */
export async function insertNewEventTypes(db: Executor, columns: EventColumns, now: Date): Promise<void> {
  const [organizationIds, , , , , names] = columns;
  await sql`
    INSERT INTO event_types (organization_id, name, label, created_at)
    SELECT DISTINCT u.organization_id, u.name, u.name, ${now}::timestamptz
    FROM ROWS FROM (unnest(${organizationIds}::uuid[]), unnest(${names}::text[])) AS u(organization_id, name)
    WHERE NOT EXISTS (SELECT 1 FROM event_types t WHERE t.organization_id = u.organization_id AND t.name = u.name)
    ON CONFLICT (organization_id, name) DO NOTHING`.execute(db);
}
