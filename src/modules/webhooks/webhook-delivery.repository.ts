import { sql } from "kysely";
import type { Executor } from "../../db/database.ts";

/** SQL of the delivery pipeline: fan-out of outbox events to endpoints, and each endpoint's queues, one per object. */

export interface FanOutResult {
  organizationId: string;
  /** The triggering event had already gone out before this statement. */
  alreadyFannedOut: boolean;
  /** Events copied by this statement. */
  count: number;
  /** Endpoints that received copies, in a fixed order. */
  endpointIds: string[];
}

/**
 * One fan-out step in one statement: takes up to `limit` of the organization's events not yet
 * fanned out, oldest first, skipping rows another fan-out holds (concurrent fan-outs take
 * disjoint batches), copies each to every enabled endpoint subscribed to its type at its
 * recording position, and marks them done.
 */
export async function fanOutBatch(db: Executor, eventId: string, limit: number, now: Date): Promise<FanOutResult | undefined> {
  const { rows } = await sql<{ organization_id: string | null; already: boolean; count: number; endpoint_ids: string[] }>`
    WITH target AS (
      SELECT organization_id, fanned_out_at FROM webhook_events WHERE id = ${eventId}
    ), batch AS (
      SELECT w.id, w.organization_id, w.type, w.ordering_key, w.position FROM webhook_events w
      WHERE w.organization_id = (SELECT organization_id FROM target) AND w.fanned_out_at IS NULL
      ORDER BY w.position
      LIMIT ${limit}
      FOR UPDATE SKIP LOCKED
    ), copies AS (
      INSERT INTO webhook_endpoint_events (organization_id, endpoint_id, event_id, type, ordering_key, sequence, next_attempt_at, created_at)
      SELECT b.organization_id, e.id, b.id, b.type, b.ordering_key, b.position, ${now}, ${now}
      FROM batch b
      JOIN webhook_endpoints e ON e.organization_id = b.organization_id AND e.enabled AND e.deleted_at IS NULL AND b.type = ANY(e.events)
      ON CONFLICT (endpoint_id, event_id) DO NOTHING
      RETURNING endpoint_id
    ), marked AS (
      UPDATE webhook_events SET fanned_out_at = ${now} WHERE id IN (SELECT id FROM batch)
    )
    SELECT (SELECT organization_id FROM target) AS organization_id,
           (SELECT fanned_out_at IS NOT NULL FROM target) AS already,
           (SELECT count(*) FROM batch)::int AS count,
           ARRAY(SELECT DISTINCT endpoint_id FROM copies ORDER BY 1)::text[] AS endpoint_ids`.execute(db);
  const row = rows[0];
  if (!row || row.organization_id === null) return undefined;
  return { organizationId: row.organization_id, alreadyFannedOut: row.already, count: row.count, endpointIds: row.endpoint_ids };
}

/** Endpoints of the organization with events still to deliver: the wake-ups a crashed fan-out owed. */
export const findEndpointIdsWithPendingEvents = async (db: Executor, organizationId: string): Promise<string[]> => {
  const rows = await db
    .selectFrom("webhook_endpoint_events")
    .select("endpoint_id")
    .distinct()
    .where("organization_id", "=", organizationId)
    .where("status", "=", "pending")
    .orderBy("endpoint_id")
    .execute();
  return rows.map((row) => row.endpoint_id);
};

/** A place after every event recorded so far: where a redelivered event re-enters its queue. */
export async function nextSequence(db: Executor): Promise<number> {
  const { rows } = await sql<{ value: string }>`SELECT nextval(pg_get_serial_sequence('webhook_events', 'position')) AS value`.execute(db);
  return Number(rows[0]?.value);
}

/**
 * The copies that hold back `ee`: earlier undelivered copies of its object on its endpoint that
 * still hold order, or earlier events of its object (of a type the endpoint takes) still being
 * fanned out, whose fan-out wakes the endpoint again. A copy that does not hold order (set aside,
 * or a redelivery) waits for nothing.
 */
const waitsForNothing = sql<boolean>`(NOT ee.holds_order OR (
  NOT EXISTS (
    SELECT 1 FROM webhook_endpoint_events prior
    WHERE prior.endpoint_id = ee.endpoint_id AND prior.ordering_key = ee.ordering_key
      AND prior.status = 'pending' AND prior.holds_order AND prior.sequence < ee.sequence)
  AND NOT EXISTS (
    SELECT 1 FROM webhook_events w
    WHERE w.organization_id = ee.organization_id AND w.fanned_out_at IS NULL
      AND w.ordering_key = ee.ordering_key AND w.position < ee.sequence AND w.type = ANY(e.events))))`;

/**
 * The endpoint's copies that can be sent at `now`: due, and held back by nothing (at most one
 * per object, besides the copies that hold no order), oldest first, with what it takes to send
 * them. None when the endpoint is disabled or deleted.
 */
export const findDeliveryHeads = (db: Executor, endpointId: string, now: Date, limit: number) =>
  db
    .selectFrom("webhook_endpoints as e")
    .innerJoin("webhook_endpoint_events as ee", "ee.endpoint_id", "e.id")
    .innerJoin("webhook_events as ev", "ev.id", "ee.event_id")
    .select([
      "e.id as endpoint_id",
      "e.organization_id",
      "e.url",
      "e.secret_sealed",
      "e.previous_secret_sealed",
      "e.previous_secret_expires_at",
      "ee.id as endpoint_event_id",
      "ee.attempts",
      "ee.holds_order",
      "ee.first_failed_at",
      "ev.payload",
    ])
    .where("e.id", "=", endpointId)
    .where("e.enabled", "=", true)
    .where("e.deleted_at", "is", null)
    .where("ee.status", "=", "pending")
    .where("ee.next_attempt_at", "<=", now)
    .where(waitsForNothing)
    .orderBy("ee.sequence")
    .limit(limit)
    .execute();
export type DeliveryHead = Awaited<ReturnType<typeof findDeliveryHeads>>[number];

/** When the endpoint's next copy held back by nothing is due (maybe already); null when none is. */
export async function nextDueAt(db: Executor, endpointId: string): Promise<Date | null> {
  const row = await db
    .selectFrom("webhook_endpoints as e")
    .innerJoin("webhook_endpoint_events as ee", "ee.endpoint_id", "e.id")
    .select((eb) => eb.fn.min("ee.next_attempt_at").as("due"))
    .where("e.id", "=", endpointId)
    .where("e.enabled", "=", true)
    .where("e.deleted_at", "is", null)
    .where("ee.status", "=", "pending")
    .where(waitsForNothing)
    .executeTakeFirst();
  return row?.due ?? null;
}

export interface AttemptRecord {
  organizationId: string;
  endpointId: string;
  endpointEventId: string;
  attempt: number;
  succeeded: boolean;
  httpCode: number | null;
  response: string | null;
  durationMs: number;
  at: Date;
}

const deliveryValues = (record: AttemptRecord) => ({
  organization_id: record.organizationId,
  endpoint_id: record.endpointId,
  endpoint_event_id: record.endpointEventId,
  attempt: record.attempt,
  succeeded: record.succeeded,
  http_code: record.httpCode,
  response: record.response,
  duration_ms: record.durationMs,
  created_at: record.at,
});

/** The common case, a run of successes, in one statement: log them, close their events, end the endpoint's failing run. */
export async function recordSuccesses(db: Executor, records: readonly AttemptRecord[]): Promise<void> {
  const first = records[0];
  if (first === undefined) return;
  const column = <T>(pick: (record: AttemptRecord) => T): T[] => records.map(pick);
  await sql`
    WITH logged AS (
      INSERT INTO webhook_deliveries (organization_id, endpoint_id, endpoint_event_id, attempt, succeeded, http_code, response, duration_ms, created_at)
      SELECT * FROM unnest(
        ${column((r) => r.organizationId)}::uuid[], ${column((r) => r.endpointId)}::uuid[], ${column((r) => r.endpointEventId)}::uuid[],
        ${column((r) => r.attempt)}::int[], ${column((r) => r.succeeded)}::bool[], ${column((r) => r.httpCode)}::int[],
        ${column((r) => r.response)}::text[], ${column((r) => r.durationMs)}::int[], ${column((r) => r.at)}::timestamptz[])
    ), closed AS (
      UPDATE webhook_endpoint_events AS ee
      SET status = 'succeeded', attempts = v.attempt, last_http_code = v.http_code, modified_at = v.at
      FROM unnest(${column((r) => r.endpointEventId)}::uuid[], ${column((r) => r.attempt)}::int[], ${column((r) => r.httpCode)}::int[], ${column((r) => r.at)}::timestamptz[])
        AS v(id, attempt, http_code, at)
      WHERE ee.id = v.id
    )
    UPDATE webhook_endpoints SET failing_since = NULL WHERE id = ${first.endpointId} AND failing_since IS NOT NULL`.execute(db);
}

export const insertDelivery = (db: Executor, record: AttemptRecord) =>
  db.insertInto("webhook_deliveries").values(deliveryValues(record)).execute();

/**
 * After a failed attempt: wait until `retryAt`, or give the event up when it is null. `setAside`
 * lets the later events of its object go ahead of it from now on.
 */
export const updateFailedEvent = (db: Executor, record: AttemptRecord, retryAt: Date | null, setAside = false) =>
  db
    .updateTable("webhook_endpoint_events")
    .set((eb) => ({
      attempts: record.attempt,
      last_http_code: record.httpCode,
      modified_at: record.at,
      first_failed_at: eb.fn.coalesce("first_failed_at", eb.val(record.at)),
      ...(retryAt ? { next_attempt_at: retryAt } : { status: "failed" as const }),
      ...(setAside ? { holds_order: false } : {}),
    }))
    .where("id", "=", record.endpointEventId)
    .execute();

/** After a failed attempt: when the endpoint's run of failures began (this attempt, when it is the first). */
export async function markEndpointFailing(db: Executor, endpointId: string, at: Date): Promise<Date> {
  const row = await db
    .updateTable("webhook_endpoints")
    .set((eb) => ({ failing_since: eb.fn.coalesce("failing_since", eb.val(at)) }))
    .where("id", "=", endpointId)
    .returning("failing_since")
    .executeTakeFirstOrThrow();
  return row.failing_since ?? at;
}

/**
 * Disables an endpoint. Its pending events stay pending, to be sent when it is enabled again.
 * True only for the caller that actually switched it off: concurrent failures disable it once.
 */
export async function disableEndpoint(db: Executor, endpointId: string, now: Date): Promise<boolean> {
  const switched = await db
    .updateTable("webhook_endpoints")
    .set({ enabled: false, modified_at: now })
    .where("id", "=", endpointId)
    .where("enabled", "=", true)
    .returning("id")
    .executeTakeFirst();
  return switched !== undefined;
}

/** A deleted endpoint's pending events are never sent: they are marked skipped. */
export const skipPendingEvents = (db: Executor, endpointId: string, now: Date) =>
  db
    .updateTable("webhook_endpoint_events")
    .set({ status: "skipped", modified_at: now })
    .where("endpoint_id", "=", endpointId)
    .where("status", "=", "pending")
    .execute();

/**
 * A re-enabled endpoint's pending events, due at once, each with a fresh retry schedule: the
 * events held while it was disabled are sent first, each object's in their order, before anything newer.
 */
export const restartPendingEvents = (db: Executor, endpointId: string, now: Date) =>
  db
    .updateTable("webhook_endpoint_events")
    .set({ next_attempt_at: now, attempts: 0, first_failed_at: null, modified_at: now })
    .where("endpoint_id", "=", endpointId)
    .where("status", "=", "pending")
    .execute();
