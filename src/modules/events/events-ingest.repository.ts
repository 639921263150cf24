import { sql } from "kysely";
import type { Executor } from "../../db/database.ts";
import type { JsonValue } from "../../db/json.ts";
import { arrayElement } from "../../db/array-literal.ts";
import { mapSlices } from "../../kit/slices.ts";

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

const EXTERNAL_ID_INDEX = "events_org_external_id_uq";

const isExternalIdConflict = (error: unknown): boolean =>
  typeof error === "object" &&
  error !== null &&
  "code" in error &&
  error.code === "23505" &&
  "constraint" in error &&
  error.constraint === EXTERNAL_ID_INDEX;

/** Columns sent per batch, each as one array parameter, in the order of the `unnest` below. */
const INSERT_COLUMNS = [
  "organization_id",
  "customer_id",
  "external_customer_id",
  "member_id",
  "external_member_id",
  "name",
  "timestamp",
  "external_id",
  "parent_id",
  "metadata",
] as const;

/** One array literal per column: ten bind parameters whatever the batch size. */
async function columnArrays(rows: readonly EventInsert[]): Promise<string[]> {
  const slices = await mapSlices(rows, (slice) =>
    INSERT_COLUMNS.map((column) =>
      slice.map((row) => arrayElement(column === "metadata" ? JSON.stringify(row.metadata) : row[column])).join(","),
    ),
  );
  return INSERT_COLUMNS.map((_, i) => `{${slices.map((columns) => columns[i]!).join(",")}}`);
}

/**
 * Inserts a whole batch in one statement, skipping rows whose (organization, external_id) already
 * exists, and returns how many rows were inserted. Rows travel as one array per column
 * (`unnest`), which PostgreSQL reads at about half the cost of one JSON document.
 *
 * The plain INSERT is tried first: `ON CONFLICT` makes every row a speculative insertion, which
 * measured 15–40% slower, and a batch of new events (the common case) has no conflict. On a
 * conflict the statement has changed nothing and the batch goes again with `ON CONFLICT DO
 * NOTHING`. Concurrent batches carrying the same external id wait on each other's index entry, so
 * each id is inserted exactly once; rows go in ordered by that key so that two batches sharing ids
 * lock them in the same order and cannot deadlock. Runs outside any transaction: a failed statement
 * would abort one.
 */
export async function insertEventsSkippingDuplicates(db: Executor, rows: readonly EventInsert[]): Promise<number> {
  if (rows.length === 0) return 0;
  const columns = await columnArrays(rows);
  try {
    return await insertRows(db, columns, false);
  } catch (error) {
    if (!isExternalIdConflict(error)) throw error;
    return insertRows(db, columns, true);
  }
}

async function insertRows(db: Executor, columns: readonly string[], skipDuplicates: boolean): Promise<number> {
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
    INSERT INTO events (id, organization_id, customer_id, external_customer_id, member_id, external_member_id, name, "timestamp", external_id, parent_id, root_id, metadata)
    SELECT r.id, r.organization_id, r.customer_id, r.external_customer_id, r.member_id, r.external_member_id, r.name, r."timestamp",
           r.external_id, r.parent_id, CASE WHEN r.parent_id IS NULL THEN r.id END, r.metadata
    FROM (
      SELECT gen_random_uuid() AS id, u.*
      FROM unnest(
        ${organizationIds}::uuid[], ${customerIds}::uuid[], ${externalCustomerIds}::text[], ${memberIds}::uuid[], ${externalMemberIds}::text[],
        ${names}::text[], ${timestamps}::timestamptz[], ${externalIds}::text[], ${parentIds}::text[], ${metadata}::jsonb[]
      ) AS u(organization_id, customer_id, external_customer_id, member_id, external_member_id, name, "timestamp", external_id, parent_id, metadata)
    ) r
    ORDER BY r.organization_id, r.external_id
    ${skipDuplicates ? sql`ON CONFLICT (organization_id, external_id) WHERE external_id IS NOT NULL DO NOTHING` : sql``}`.execute(db);
  return Number(result.numAffectedRows ?? 0n);
}

/** Organization of each live (not deleted) customer among `ids`, in one query. */
export async function findLiveCustomerOrganizations(db: Executor, ids: readonly string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .selectFrom("customers")
    .select(["id", "organization_id"])
    .where("id", "in", ids)
    .where("deleted_at", "is", null)
    .execute();
  return new Map(rows.map((row) => [row.id, row.organization_id]));
}
