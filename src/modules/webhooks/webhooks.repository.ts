import type { Insertable, Updateable } from "kysely";
import type { Executor } from "../../db/database.ts";
import type { OrganizationScope } from "../../http/auth.ts";
import { containsPattern } from "../../schema/pagination.ts";
import type { DeliveryView } from "./webhooks.mapper.ts";
import type { WebhookEndpointRow, WebhookEndpointsTable } from "./webhooks.table.ts";
import { countRows } from "../../db/count-rows.ts";

export const insertEndpoint = (db: Executor, values: Insertable<WebhookEndpointsTable>) =>
  db.insertInto("webhook_endpoints").values(values).returningAll().executeTakeFirstOrThrow();

function liveEndpoints(db: Executor, allowed: OrganizationScope) {
  let query = db.selectFrom("webhook_endpoints").where("deleted_at", "is", null);
  if (allowed !== null) query = query.where("organization_id", "in", allowed);
  return query;
}

export const findEndpoint = (db: Executor, id: string, allowed: OrganizationScope) =>
  liveEndpoints(db, allowed).selectAll().where("id", "=", id).executeTakeFirst();

/** Locks the endpoint row so that concurrent updates apply one after the other. */
export const findEndpointForUpdate = (db: Executor, id: string, allowed: OrganizationScope) =>
  liveEndpoints(db, allowed).selectAll().where("id", "=", id).forUpdate().executeTakeFirst();

export async function listEndpoints(
  db: Executor,
  filter: { organizationIds: string[] | undefined },
  allowed: OrganizationScope,
  page: { limit: number; offset: number },
): Promise<{ rows: WebhookEndpointRow[]; total: number }> {
  let query = liveEndpoints(db, allowed);
  if (filter.organizationIds !== undefined) query = query.where("organization_id", "in", filter.organizationIds);
  const [rows, total] = await Promise.all([
    query.selectAll().orderBy("created_at", "desc").orderBy("id", "desc").limit(page.limit).offset(page.offset).execute(),
    countRows(query),
  ]);
  return { rows, total };
}

export const updateEndpoint = (db: Executor, id: string, values: Updateable<WebhookEndpointsTable>) =>
  db.updateTable("webhook_endpoints").set(values).where("id", "=", id).returningAll().executeTakeFirstOrThrow();

/** An endpoint's event, for redelivery: only while its endpoint exists. */
export const findEndpointEventForUpdate = (db: Executor, id: string, allowed: OrganizationScope) => {
  let query = db
    .selectFrom("webhook_endpoint_events as ee")
    .innerJoin("webhook_endpoints as e", "e.id", "ee.endpoint_id")
    .select(["ee.id", "ee.endpoint_id", "ee.status", "e.enabled"])
    .where("ee.id", "=", id)
    .where("e.deleted_at", "is", null);
  if (allowed !== null) query = query.where("ee.organization_id", "in", allowed);
  return query.forUpdate("ee").executeTakeFirst();
};

/**
 * Sends an endpoint's event again, due now. `outOfBand` (a settled event sent again) gives it a
 * fresh schedule and lets it wait for, and hold back, no other event of its object.
 */
export const requeueEndpointEvent = (
  db: Executor,
  id: string,
  values: { now: Date } & ({ outOfBand: false } | { outOfBand: true; sequence: number }),
) =>
  db
    .updateTable("webhook_endpoint_events")
    .set({
      status: "pending",
      next_attempt_at: values.now,
      modified_at: values.now,
      ...(values.outOfBand ? { sequence: values.sequence, attempts: 0, first_failed_at: null, holds_order: false } : {}),
    })
    .where("id", "=", id)
    .execute();

export interface DeliveryFilter {
  endpointIds: string[] | undefined;
  start: Date | null;
  end: Date | null;
  succeeded: boolean | null;
  text: string | null;
  httpCodeClass: number | null;
  eventTypes: string[] | undefined;
}

export async function listDeliveries(
  db: Executor,
  filter: DeliveryFilter,
  allowed: OrganizationScope,
  page: { limit: number; offset: number },
): Promise<{ rows: DeliveryView[]; total: number }> {
  let query = db
    .selectFrom("webhook_deliveries as d")
    .innerJoin("webhook_endpoints as e", "e.id", "d.endpoint_id")
    .innerJoin("webhook_endpoint_events as ee", "ee.id", "d.endpoint_event_id")
    .innerJoin("webhook_events as ev", "ev.id", "ee.event_id")
    .where("e.deleted_at", "is", null);
  if (allowed !== null) query = query.where("d.organization_id", "in", allowed);
  if (filter.endpointIds !== undefined) query = query.where("d.endpoint_id", "in", filter.endpointIds);
  if (filter.start !== null) query = query.where("d.created_at", ">", filter.start);
  if (filter.end !== null) query = query.where("d.created_at", "<", filter.end);
  if (filter.succeeded !== null) query = query.where("d.succeeded", "=", filter.succeeded);
  if (filter.eventTypes !== undefined) query = query.where("ee.type", "in", filter.eventTypes);
  if (filter.httpCodeClass !== null) {
    query = query.where("d.http_code", ">=", filter.httpCodeClass).where("d.http_code", "<", filter.httpCodeClass + 100);
  }
  if (filter.text !== null) {
    const pattern = containsPattern(filter.text);
    query = query.where((eb) => eb.or([eb(eb.cast("ev.payload", "text"), "ilike", pattern), eb("d.response", "ilike", pattern)]));
  }
  const [rows, total] = await Promise.all([
    query
      .select([
        "d.id",
        "d.created_at",
        "d.succeeded",
        "d.http_code",
        "d.response",
        "d.duration_ms",
        "ee.id as event_id",
        "ee.created_at as event_created_at",
        "ee.modified_at as event_modified_at",
        "ee.type",
        "ee.status",
        "ee.attempts",
        "ee.last_http_code",
        "ev.payload",
      ])
      .orderBy("d.created_at", "desc")
      .orderBy("d.id", "desc")
      .limit(page.limit)
      .offset(page.offset)
      .execute(),
    countRows(query),
  ]);
  return {
    rows: rows.map((row) => ({
      id: row.id,
      created_at: row.created_at,
      succeeded: row.succeeded,
      http_code: row.http_code,
      response: row.response,
      duration_ms: row.duration_ms,
      event: {
        id: row.event_id,
        created_at: row.event_created_at,
        modified_at: row.event_modified_at,
        type: row.type,
        status: row.status,
        attempts: row.attempts,
        last_http_code: row.last_http_code,
        payload: row.payload,
      },
    })),
    total,
  };
}
