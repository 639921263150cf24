import { randomUUID } from "node:crypto";
import { sql } from "kysely";
import type { Executor } from "../../db/database.ts";
import type { JsonValue } from "../../db/json.ts";
import { arrayElements } from "../../db/array-literal.ts";
import { copyField, copyFrom } from "../../db/copy-from.ts";
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

/** A batch's rows as one literal per column, for the statement that skips duplicates. */
export type EventColumns = readonly string[];
export const prepareEventColumns = columnArrays;

/**
 * The order claims are made in, by every path: two batches sharing external ids lock them in the
 * same order, so they cannot deadlock. Any total order serves, as long as there is one.
 */
const claimOrder = (a: EventInsert, b: EventInsert): number =>
  a.organization_id !== b.organization_id
    ? a.organization_id < b.organization_id
      ? -1
      : 1
    : a.external_id === b.external_id
      ? 0
      : a.external_id === null
        ? 1
        : b.external_id === null || a.external_id < b.external_id
          ? -1
          : 1;

/**
 * The columns of `events` a batch is copied into: the id and what the events say. The database fills
 * the rest (migration 2026-12-04T0200): `root_id` (generated: the id when there is no parent) and
 * `ingested_at` (`statement_timestamp()`: the copy's arrival, after the ingest lock). The id is made
 * here rather than left to its default: `gen_random_uuid()` is volatile, and a volatile default of
 * a column the copy leaves out makes PostgreSQL insert the rows one by one (one WAL record each)
 * instead of a page's worth at a time; `statement_timestamp()` is stable and keeps the batching.
 */
const EVENT_COPY_TARGET = `events (id, organization_id, customer_id, external_customer_id, member_id, external_member_id, name, "timestamp", external_id, parent_id, metadata)`;
const CLAIM_COPY_TARGET = "event_external_ids (organization_id, external_id)";

/** What names an event type: the organization and the events' name. */
export interface EventTypeKey {
  readonly organizationId: string;
  readonly name: string;
}

/** A batch ready to store: its rows in claim order, their claims and events as COPY text, their event types. */
export interface PreparedEvents {
  readonly rows: readonly EventInsert[];
  /** One line per external id: organization, external id. */
  readonly claims: string;
  /** One line per event, the columns of `EVENT_COPY_TARGET`. */
  readonly events: string;
  /** The batch's distinct (organization, name) pairs. */
  readonly types: readonly EventTypeKey[];
}

/**
 * The COPY text of one event, without its line end; the id made here (v4, as `gen_random_uuid()`).
 * Joined from an array rather than a template literal: the template makes a tree of string pieces
 * per line, which the batch's join then walks; the array's join copies the fields into one flat
 * string, and the batch's join copies flat lines.
 */
function eventLine(row: EventInsert): string {
  return [
    randomUUID(),
    row.organization_id,
    copyField(row.customer_id),
    copyField(row.external_customer_id),
    copyField(row.member_id),
    copyField(row.external_member_id),
    copyField(row.name),
    copyField(row.timestamp),
    copyField(row.external_id),
    copyField(row.parent_id),
    copyField(JSON.stringify(row.metadata)),
  ].join("\t");
}

/** Sorts the rows into claim order and writes them as COPY text, slice by slice (large batches yield between slices). */
export async function prepareEvents(unordered: readonly EventInsert[]): Promise<PreparedEvents> {
  const rows = [...unordered].sort(claimOrder);
  const slices = await mapSlices(rows, (slice) => {
    let claims = "";
    for (const row of slice) if (row.external_id !== null) claims += `${row.organization_id}\t${copyField(row.external_id)}\n`;
    return { claims, events: `${slice.map(eventLine).join("\n")}\n` };
  });
  const pairs = new Map<string, Set<string>>();
  for (const row of rows) {
    const names = pairs.get(row.organization_id) ?? new Set<string>();
    pairs.set(row.organization_id, names.add(row.name));
  }
  return {
    rows,
    claims: slices.map((slice) => slice.claims).join(""),
    events: slices.map((slice) => slice.events).join(""),
    types: [...pairs].flatMap(([organizationId, names]) => [...names].map((name) => ({ organizationId, name }))),
  };
}

/**
 * Stores a batch of events none of which is a duplicate, by `COPY`, and returns how many were
 * stored: the fast path, the same writes as `COPY` of the events plus their claims.
 *
 * The batch's external ids are claimed first, in `event_external_ids` (also by `COPY`): `events`
 * is partitioned, so no index of its own can keep an external id unique across partitions
 * (docs/decisions.md, "Events partitioned by month"). A claim meeting a claimed id fails the copy
 * (`isExternalIdConflict`) and with it the transaction; the caller then sends the batch through
 * {@link insertEventsSkippingDuplicates}. Concurrent batches carrying the same external id wait on
 * each other's key, so each id is claimed exactly once; claims go in claim order (`prepareEvents`)
 * so that two batches sharing ids lock them in the same order and cannot deadlock.
 *
 * The events' `ingested_at` is the copy's `statement_timestamp()` (the column's default), which the
 * database reads when the statement arrives, after the caller took the organizations' shared ingest
 * lock in the same transaction: the meters aggregate the events by it, after their commit
 * (meter-ingest-locks.repository.ts, meter-aggregates.repository.ts).
 */
export async function copyEvents(db: Executor, batch: PreparedEvents): Promise<number> {
  if (batch.claims !== "") await copyFrom(db, CLAIM_COPY_TARGET, batch.claims);
  return copyFrom(db, EVENT_COPY_TARGET, batch.events);
}

/**
 * Inserts the batch's events whose external id is not claimed yet (and those without one), in one
 * statement, and returns how many were inserted: the path of a batch that met a duplicate. Rows
 * travel as one array per column (`unnest`, zipped by `ROWS FROM`). The claims are made with `ON
 * CONFLICT DO NOTHING` in the batch's order (claim order, as the copy's): the claims that return
 * are the new events, and only those are inserted. `id`, `root_id` and `ingested_at` as in {@link copyEvents}.
 */
export async function insertEventsSkippingDuplicates(db: Executor, columns: EventColumns): Promise<number> {
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
  const result = await sql`
    WITH batch AS (
      SELECT u.*
      FROM ROWS FROM (
        unnest(${organizationIds}::uuid[]), unnest(${customerIds}::uuid[]), unnest(${externalCustomerIds}::text[]), unnest(${memberIds}::uuid[]),
        unnest(${externalMemberIds}::text[]), unnest(${names}::text[]), unnest(${timestamps}::timestamptz[]), unnest(${externalIds}::text[]),
        unnest(${parentIds}::text[]), jsonb_array_elements(${metadata}::jsonb)
      ) WITH ORDINALITY AS u(organization_id, customer_id, external_customer_id, member_id, external_member_id, name, "timestamp", external_id, parent_id, metadata, position)
    ), claimed AS (
      INSERT INTO event_external_ids (organization_id, external_id)
      SELECT organization_id, external_id FROM batch WHERE external_id IS NOT NULL ORDER BY position
      ON CONFLICT DO NOTHING RETURNING organization_id, external_id
    )
    INSERT INTO events (organization_id, customer_id, external_customer_id, member_id, external_member_id, name, "timestamp", external_id, parent_id, metadata)
    SELECT r.organization_id, r.customer_id, r.external_customer_id, r.member_id, r.external_member_id, r.name, r."timestamp",
           r.external_id, r.parent_id, r.metadata
    FROM batch r
    WHERE r.external_id IS NULL OR (r.organization_id, r.external_id) IN (SELECT organization_id, external_id FROM claimed)`.execute(db);
  return Number(result.numAffectedRows ?? 0n);
}

/**
 * The batch's first statement under the ingest lock, when it names types this process has not seen
 * stored (known-event-types.ts): inserts the event types of its names not seen before in their
 * organization, labelled with the name (the pairs come distinct from `prepareEvents`). Names already
 * known are filtered out first, so the statement makes no speculative insertion; `ON CONFLICT`
 * covers a concurrent batch introducing the same name.
 */
export async function insertNewEventTypes(db: Executor, types: readonly EventTypeKey[], now: Date): Promise<void> {
  const organizationIds = `{${arrayElements(types, (type) => type.organizationId)}}`;
  const names = `{${arrayElements(types, (type) => type.name)}}`;
  await sql`
    INSERT INTO event_types (organization_id, name, label, created_at)
    SELECT u.organization_id, u.name, u.name, ${now}::timestamptz
    FROM ROWS FROM (unnest(${organizationIds}::uuid[]), unnest(${names}::text[])) AS u(organization_id, name)
    WHERE NOT EXISTS (SELECT 1 FROM event_types t WHERE t.organization_id = u.organization_id AND t.name = u.name)
    ON CONFLICT (organization_id, name) DO NOTHING`.execute(db);
}
