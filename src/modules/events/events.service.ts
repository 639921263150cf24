import type { Expression, SqlBool } from "kysely";
import type { Deps } from "../../context.ts";
import { compileFilter, meterEventCondition, parseFilterText } from "../meters/meters.steps.ts";
import { findMeter } from "../meters/meters.steps.ts";
import type { Executor } from "../../db/database.ts";
import type { JsonValue } from "../../db/json.ts";
import type { OrganizationScope, Principal } from "../../http/auth.ts";
import { RequestValidationError, ResourceNotFound, type ValidationIssue, fieldIssue } from "../../http/errors.ts";
import { mapInSlices } from "../../values/slices.ts";
import { countEventsIngested } from "../../observability/operation-counters.ts";
import { pageWindow, parseSorting, toPage } from "../../schema/pagination.ts";
import { findLiveCustomerOrganizations, findLiveMemberCustomers } from "../customers/customers.steps.ts";
import { findOrganizationIds } from "../organizations/organizations.steps.ts";
import { customerMatcher, toEvent, toEventName } from "./events.mapper.ts";
import {
  countEventNames,
  countEvents,
  eventOfOrganization,
  findCustomersOfEvents,
  listEventNames,
  listEvents,
  type EventFilter,
} from "./events.repository.ts";
import {
  copyEvents,
  insertEventsSkippingDuplicates,
  insertNewEventTypes,
  isExternalIdConflict,
  prepareEventColumns,
  prepareEvents,
  type EventInsert,
} from "./events-ingest.repository.ts";
import { lockIngestShared } from "../meters/meters.steps.ts";
import { createKnownEventTypes, type KnownEventTypes } from "./known-event-types.ts";
import type {
  Event,
  EventCreate,
  EventListQuery,
  EventNameListQuery,
  EventsIngest,
  EventsIngestResponse,
  ListResourceEvent,
  ListResourceEventName,
} from "./events.schemas.ts";

/** The filters on whose events, and of which source, that the list and the names share. */
const ownerFilter = (query: EventListQuery | EventNameListQuery, allowed: OrganizationScope): EventFilter => ({
  allowed,
  organizationIds: query.organization_id,
  customerIds: query.customer_id,
  externalCustomerIds: query.external_customer_id,
  sources: query.source,
});

const issue = (index: number, field: string, type: string, msg: string, input: unknown): ValidationIssue =>
  fieldIssue(["body", "events", index, field], msg, input, type);

/** The organization each event belongs to, or the issue that prevents knowing it. */
function owningOrganization(event: EventCreate, index: number, principal: Principal): string | ValidationIssue {
  const given = event.organization_id ?? null;
  if (principal.kind === "organization") {
    if (given !== null) {
      return issue(
        index,
        "organization_id",
        "organization_token",
        "Setting organization_id is disallowed when using an organization token.",
        given,
      );
    }
    return principal.organizationId;
  }
  return given ?? issue(index, "organization_id", "missing", "organization_id is required.", null);
}

function toInsert(event: EventCreate, organizationId: string, receivedAt: string): EventInsert {
  const customer = "customer_id" in event;
  return {
    organization_id: organizationId,
    customer_id: customer ? event.customer_id : null,
    external_customer_id: customer ? null : event.external_customer_id,
    member_id: customer ? (event.member_id ?? null) : null,
    external_member_id: customer ? null : (event.external_member_id ?? null),
    name: event.name,
    timestamp: event.timestamp ?? receivedAt,
    external_id: event.external_id ?? null,
    parent_id: event.parent_id ?? null,
    metadata: normalizeMetadata(event.metadata ?? {}),
  };
}

/** Cost amounts are decimals and are emitted as text, whichever form they came in. */
function normalizeMetadata(metadata: NonNullable<EventCreate["metadata"]>): Record<string, JsonValue> {
  const cost = metadata._cost;
  if (cost === undefined || typeof cost.amount === "string") return metadata;
  return { ...metadata, _cost: { ...cost, amount: String(cost.amount) } };
}

/** Drops events whose external id appeared earlier in the batch: the first occurrence wins. */
function dropRepeatedExternalIds(rows: EventInsert[]): EventInsert[] {
  // Keyed by organization then external id: no key string built per event.
  const seen = new Map<string, Set<string>>();
  return rows.filter((row) => {
    if (row.external_id === null) return true;
    let ids = seen.get(row.organization_id);
    if (ids === undefined) seen.set(row.organization_id, (ids = new Set()));
    if (ids.has(row.external_id)) return false;
    ids.add(row.external_id);
    return true;
  });
}

/** Every rule that needs the database, checked for the whole batch with one query per kind. */
async function referenceIssues(
  db: Executor,
  events: readonly EventCreate[],
  organizations: readonly (string | null)[],
  principal: Principal,
) {
  const issues: ValidationIssue[] = [];
  const named = [...new Set(organizations.filter((id): id is string => id !== null))];
  const knownOrganizations = principal.kind === "user" ? await findOrganizationIds(db, named) : new Set(named);
  const customerIds = [...new Set(events.flatMap((e) => ("customer_id" in e ? [e.customer_id] : [])))];
  const customerOrganizations = await findLiveCustomerOrganizations(db, customerIds);
  const memberIds = [...new Set(events.flatMap((e) => ("customer_id" in e && e.member_id != null ? [e.member_id] : [])))];
  const memberCustomers = await findLiveMemberCustomers(db, memberIds);
  events.forEach((event, index) => {
    const organizationId = organizations[index] ?? null;
    if (organizationId === null) return;
    if (!knownOrganizations.has(organizationId)) {
      issues.push(issue(index, "organization_id", "organization_id", "Organization not found.", organizationId));
      return;
    }
    if (!("customer_id" in event)) return;
    // Another organization's customer is answered exactly like an unknown one.
    if (customerOrganizations.get(event.customer_id) !== organizationId) {
      issues.push(issue(index, "customer_id", "customer_id", "Customer not found.", event.customer_id));
    }
    // A member of another customer (or organization) is answered exactly like an unknown one.
    if (event.member_id != null && memberCustomers.get(event.member_id) !== event.customer_id) {
      issues.push(issue(index, "member_id", "member_id", "Member not found.", event.member_id));
    }
  });
  return issues;
}

/**
 * Stores the rows in one transaction that holds their organizations' shared ingest lock (the
 * meters' aggregation cuts wait for it: meter-aggregates.repository.ts): by `COPY` first, and a
 * batch meeting a known external id goes again skipping duplicates.
 */
async function store(deps: Deps, knownTypes: KnownEventTypes, unordered: readonly EventInsert[]): Promise<number> {
  if (unordered.length === 0) return 0;
  const batch = await prepareEvents(unordered);
  const organizationIds = [...new Set(batch.rows.map((row) => row.organization_id))];
  const newTypes = knownTypes.unknown(batch.types);
  const attempt = (write: (trx: Executor) => Promise<number>) =>
    deps.db.transaction().execute(async (trx) => {
      await lockIngestShared(trx, organizationIds);
      if (newTypes.length > 0) await insertNewEventTypes(trx, newTypes, deps.now());
      return write(trx);
    });
  const stored = await attempt((trx) => copyEvents(trx, batch)).catch(async (error: unknown) => {
    if (!isExternalIdConflict(error)) throw error;
    const columns = await prepareEventColumns(batch.rows);
    return attempt((trx) => insertEventsSkippingDuplicates(trx, columns));
  });
  knownTypes.remember(newTypes);
  return stored;
}

/** The list's `meter_id` (the meter's organization and its events) and `filter` (clauses as JSON text). */
async function meterConditions(db: Executor, query: EventListQuery, allowed: OrganizationScope): Promise<Expression<SqlBool>[]> {
  const conditions: Expression<SqlBool>[] = [];
  if (query.filter !== undefined) {
    const parsed = parseFilterText(query.filter);
    if ("issues" in parsed) throw new RequestValidationError(parsed.issues);
    conditions.push(compileFilter(parsed.filter, "e"));
  }
  if (query.meter_id !== undefined) {
    const meter = await findMeter(db, query.meter_id, allowed);
    if (!meter) throw new RequestValidationError([fieldIssue(["query", "meter_id"], "Meter not found.", query.meter_id, "meter_id")]);
    conditions.push(eventOfOrganization(meter.organization_id), meterEventCondition(meter.filter, meter.aggregation, "e"));
  }
  return conditions;
}

/** All or nothing: one refused event refuses the batch; duplicates are counted, not inserted. */
async function ingest(deps: Deps, knownTypes: KnownEventTypes, body: EventsIngest, principal: Principal): Promise<EventsIngestResponse> {
  const receivedAt = deps.now().toISOString();
  const issues: ValidationIssue[] = [];
  const organizations = body.events.map((event, index) => {
    const owner = owningOrganization(event, index, principal);
    if (typeof owner === "string") return owner;
    issues.push(owner);
    return null;
  });
  issues.push(...(await referenceIssues(deps.db, body.events, organizations, principal)));
  if (issues.length > 0) throw new RequestValidationError(issues.sort((a, b) => Number(a.loc[2]) - Number(b.loc[2])));
  const rows = dropRepeatedExternalIds(
    await mapInSlices(body.events, (event, index) => toInsert(event, organizations[index]!, receivedAt)),
  );
  const inserted = await store(deps, knownTypes, rows);
  countEventsIngested("inserted", inserted);
  countEventsIngested("duplicate", body.events.length - inserted);
  return { inserted, duplicates: body.events.length - inserted };
}

async function listEventPage(deps: Deps, query: EventListQuery, allowed: OrganizationScope): Promise<ListResourceEvent> {
  const conditions = await meterConditions(deps.db, query, allowed);
  const filter: EventFilter = {
    conditions,
    ...ownerFilter(query, allowed),
    names: query.name,
    after: query.start_timestamp === undefined ? undefined : new Date(query.start_timestamp),
    before: query.end_timestamp === undefined ? undefined : new Date(query.end_timestamp),
    parentId: query.parent_id,
    depth: query.depth,
    text: query.query,
    metadata: query.metadata,
  };
  const [total, rows] = await Promise.all([
    countEvents(deps.readDb, filter),
    listEvents(deps.readDb, filter, parseSorting(query.sorting), pageWindow(query)),
  ]);
  const customerOf = customerMatcher(await findCustomersOfEvents(deps.readDb, rows));
  return toPage(
    rows.map((row) => toEvent(row, customerOf(row))),
    total,
    query,
  );
}

/** Each name (and source) of the caller's events, with its occurrences and first and last times. */
async function listNamePage(deps: Deps, query: EventNameListQuery, allowed: OrganizationScope): Promise<ListResourceEventName> {
  const filter: EventFilter = { ...ownerFilter(query, allowed), nameContains: query.query };
  const [total, rows] = await Promise.all([
    countEventNames(deps.readDb, filter),
    listEventNames(deps.readDb, filter, parseSorting(query.sorting), pageWindow(query)),
  ]);
  return toPage(rows.map(toEventName), total, query);
}

async function getEvent(db: Executor, id: string, allowed: OrganizationScope): Promise<Event> {
  const [row] = await listEvents(db, { allowed, id }, [], { limit: 1, offset: 0 });
  if (!row) throw new ResourceNotFound();
  return toEvent(row, customerMatcher(await findCustomersOfEvents(db, [row]))(row));
}

/** The events' operations, bound to the service's dependencies. */
export function createEventService(deps: Deps) {
  const knownTypes = createKnownEventTypes();
  return {
    ingest: (body: EventsIngest, principal: Principal) => ingest(deps, knownTypes, body, principal),
    list: (query: EventListQuery, allowed: OrganizationScope) => listEventPage(deps, query, allowed),
    listNames: (query: EventNameListQuery, allowed: OrganizationScope) => listNamePage(deps, query, allowed),
    get: (id: string, allowed: OrganizationScope) => getEvent(deps.db, id, allowed),
  };
}
export type EventService = ReturnType<typeof createEventService>;
