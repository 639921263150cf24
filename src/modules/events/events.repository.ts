import { sql, type Expression, type RawBuilder, type SqlBool } from "kysely";
import type { Executor } from "../../db/database.ts";
import type { OrganizationScope } from "../../http/auth.ts";
import { metadataMatches } from "../../db/list-filters.ts";
import { containsPattern, type MetadataFilter, type SortCriterion } from "../../schema/pagination.ts";
import { namedCustomerIn, namedCustomerMatches, selectCustomersForRead } from "../customers/customers.steps.ts";
import type { EventNameSortKey } from "./events.schemas.ts";
import type { EventRow, EventSourceValue } from "./events.table.ts";
import { countRows } from "../../db/count-rows.ts";

export interface EventFilter {
  allowed: OrganizationScope;
  organizationIds?: readonly string[] | undefined;
  customerIds?: readonly string[] | undefined;
  externalCustomerIds?: readonly string[] | undefined;
  names?: readonly string[] | undefined;
  sources?: readonly EventSourceValue[] | undefined;
  after?: Date | undefined;
  before?: Date | undefined;
  /** The descendants of this event: its direct children, or down to `depth` levels. */
  parentId?: string | undefined;
  /** Levels below the roots (or below `parentId`) to include. */
  depth?: number | undefined;
  /** The list's `query`: text to look for (see `matchesText`). */
  text?: string | undefined;
  /** Text the event's name contains, case-insensitive (the names list's `query`). */
  nameContains?: string | undefined;
  metadata?: MetadataFilter | undefined;
  id?: string | undefined;
  /** Further conditions on the event row `e` (a meter's filter, a `filter` clause set). */
  conditions?: readonly Expression<SqlBool>[] | undefined;
}

/** The event as read: its parent resolved to an event id, and its number of direct children. */
export type EventReadRow = EventRow & { resolved_parent_id: string | null; child_count: number };

const UUID_TEXT = "^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$";

/**
 * The id of the event that a `parent_id` names in its organization: the event with that id (in
 * any letter case) wins, else the one with that external id; null when none (yet).
 */
const parentNamedBy = (organizationId: RawBuilder<unknown>, parentId: RawBuilder<unknown>) => sql<string | null>`COALESCE(
  (SELECT q.id FROM events q WHERE q.organization_id = ${organizationId} AND q.id = CASE WHEN ${parentId} ~ ${UUID_TEXT} THEN ${parentId}::uuid END),
  (SELECT q.id FROM events q WHERE q.organization_id = ${organizationId} AND q.external_id = ${parentId})
)`;

/**
 * The event `child` has the event `parent` as its parent (both table aliases). The text match
 * finds candidates through the (organization_id, parent_id) index: the parent's id as sent in
 * lower or upper case, or its external id. Resolving then drops a candidate whose parent_id
 * names another event first.
 */
function isChildOf(child: string, parent: string): RawBuilder<SqlBool> {
  const organizationId = sql.ref(`${child}.organization_id`);
  const parentId = sql.ref(`${child}.parent_id`);
  const id = sql.ref(`${parent}.id`);
  return sql<SqlBool>`(
    ${organizationId} = ${sql.ref(`${parent}.organization_id`)}
    AND ${parentId} = ANY(ARRAY[${id}::text, upper(${id}::text), ${sql.ref(`${parent}.external_id`)}])
    AND ${parentNamedBy(organizationId, parentId)} = ${id})`;
}

/**
 * The event is a root (no parent) or reaches one within `depth` parents, and that root itself
 * passes `rootMatches` (the list's other filters). Walked upwards per row: a bounded number of
 * index lookups, which keeps the organization's timestamp order usable for paging, where a walk
 * down from every root would visit the whole organization.
 */
function withinDepthOfARoot(depth: number, rootMatches: Expression<SqlBool>): Expression<SqlBool> {
  if (depth === 0) return sql<SqlBool>`e.parent_id IS NULL`;
  return sql<SqlBool>`EXISTS (
    WITH RECURSIVE up(id, parent_id, hops) AS (
      SELECT e.id, e.parent_id, 0
      UNION ALL
      SELECT p.id, p.parent_id, up.hops + 1 FROM up
      JOIN events p ON p.id = ${parentNamedBy(sql`e.organization_id`, sql`up.parent_id`)}
      WHERE up.parent_id IS NOT NULL AND up.hops < ${depth}
    )
    SELECT 1 FROM up WHERE up.parent_id IS NULL AND ${rootMatches})`;
}

/**
 * The descendants of `anchorId` from 1 to `depth` levels down, never the event itself: walked
 * down once, from an anchor in the caller's organizations only.
 */
function descendantOf(anchorId: string, depth: number, allowed: OrganizationScope): Expression<SqlBool> {
  if (depth === 0) return sql<SqlBool>`false`;
  const anchorAllowed = allowed === null ? sql`true` : sql`a.organization_id = ANY(${allowed}::uuid[])`;
  // An array (computed once) rather than IN: the planner then fetches the few ids by primary
  // key instead of scanning the organization to test each row against the walk.
  return sql<SqlBool>`e.id = ANY(ARRAY(
    WITH RECURSIVE down(id, organization_id, external_id, hops) AS (
      SELECT a.id, a.organization_id, a.external_id, 0 FROM events a WHERE a.id = ${anchorId} AND ${anchorAllowed}
      UNION ALL
      SELECT c.id, c.organization_id, c.external_id, down.hops + 1 FROM down JOIN events c ON ${isChildOf("c", "down")}
      WHERE down.hops < ${depth}
    )
    SELECT id FROM down WHERE hops > 0 AND id <> ${anchorId}))`;
}

/**
 * The list's `query`: a substring of the name or the source, or of the id, external id, name or
 * email of the event's customer (by id, or by external id as on read), all case-insensitive and
 * with `%` and `_` taken literally; or words of the metadata's values, not its keys (full-text,
 * no stemming).
 */
function matchesText(text: string): Expression<SqlBool> {
  const pattern = containsPattern(text);
  return sql<SqlBool>`(
    e.name ILIKE ${pattern} OR e.source ILIKE ${pattern}
    OR ${namedCustomerMatches(eventCustomer, pattern)}
    OR jsonb_to_tsvector('simple', e.metadata, '["string", "numeric", "boolean"]') @@ plainto_tsquery('simple', ${text})
  )`;
}

/** A condition for `EventFilter.conditions`: the event row `e` belongs to the organization (a meter's). */
export const eventOfOrganization = (organizationId: string): RawBuilder<SqlBool> =>
  sql<SqlBool>`e.organization_id = ${organizationId}::uuid`;

/** How an event row `e` names its customer. */
const eventCustomer = {
  organizationId: sql.ref<string>("e.organization_id"),
  id: sql.ref<string | null>("e.customer_id"),
  externalId: sql.ref<string | null>("e.external_customer_id"),
};

function filtered(db: Executor, filter: EventFilter) {
  const in_ = <T>(values: readonly T[] | undefined) => values !== undefined && values.length > 0;
  return db.selectFrom("events as e").where((eb) => {
    const conditions: Expression<SqlBool>[] = [];
    if (filter.allowed !== null) conditions.push(eb("e.organization_id", "in", filter.allowed));
    if (in_(filter.organizationIds)) conditions.push(eb("e.organization_id", "in", filter.organizationIds!));
    if (in_(filter.customerIds)) conditions.push(namedCustomerIn(eventCustomer, { ids: filter.customerIds! }));
    if (in_(filter.externalCustomerIds)) conditions.push(namedCustomerIn(eventCustomer, { externalIds: filter.externalCustomerIds! }));
    if (in_(filter.names)) conditions.push(eb("e.name", "in", filter.names!));
    if (in_(filter.sources)) conditions.push(eb("e.source", "in", filter.sources!));
    if (filter.after) conditions.push(eb("e.timestamp", ">", filter.after));
    if (filter.before) conditions.push(eb("e.timestamp", "<", filter.before));
    if (filter.id !== undefined) conditions.push(eb("e.id", "=", filter.id));
    if (filter.parentId !== undefined) {
      // Without a depth: the direct children.
      conditions.push(descendantOf(filter.parentId, filter.depth ?? 1, filter.allowed));
    } else if (filter.depth !== undefined) {
      // The root must pass the same filters: the same query again, on the root's row.
      const rootMatches = eb.exists(
        filtered(db, { ...filter, depth: undefined })
          .select("e.id")
          .where(sql<SqlBool>`e.id = up.id`),
      );
      conditions.push(withinDepthOfARoot(filter.depth, rootMatches));
    }
    if (filter.text !== undefined) conditions.push(matchesText(filter.text));
    if (filter.nameContains !== undefined) conditions.push(eb("e.name", "ilike", containsPattern(filter.nameContains)));
    if (filter.metadata) conditions.push(metadataMatches(eb, "e.metadata", filter.metadata));
    conditions.push(...(filter.conditions ?? []));
    return eb.and(conditions);
  });
}

export const countEvents = (db: Executor, filter: EventFilter): Promise<number> => countRows(filtered(db, filter));

export async function listEvents(
  db: Executor,
  filter: EventFilter,
  sorting: readonly SortCriterion<"timestamp">[],
  window: { limit: number; offset: number },
): Promise<EventReadRow[]> {
  let query = filtered(db, filter)
    .selectAll("e")
    .select([
      parentNamedBy(sql`e.organization_id`, sql`e.parent_id`).as("resolved_parent_id"),
      sql<number>`(SELECT count(*) FROM events c WHERE ${isChildOf("c", "e")})::int`.as("child_count"),
    ]);
  for (const { key, direction } of sorting) query = query.orderBy(`e.${key}`, direction);
  // A unique tiebreaker so that pages never repeat or skip rows.
  return query
    .orderBy("e.id", sorting[0]?.direction ?? "desc")
    .limit(window.limit)
    .offset(window.offset)
    .execute();
}

/** Customers of these events, matched by id or, for events naming an external id, by that. */
export async function findCustomersOfEvents(db: Executor, events: readonly EventRow[]) {
  const ids = [...new Set(events.flatMap((e) => (e.customer_id === null ? [] : [e.customer_id])))];
  const external = events.filter((e) => e.customer_id === null && e.external_customer_id !== null);
  if (ids.length === 0 && external.length === 0) return [];
  return selectCustomersForRead(db)
    .where((eb) =>
      eb.or([
        ...(ids.length > 0 ? [eb("c.id", "in", ids)] : []),
        ...(external.length > 0
          ? [
              eb.and([
                eb("c.deleted_at", "is", null),
                eb(
                  eb.refTuple("c.organization_id", "c.external_id"),
                  "in",
                  external.map((e) => eb.tuple(e.organization_id, e.external_customer_id!)),
                ),
              ]),
            ]
          : []),
      ]),
    )
    .execute();
}

export interface EventNameRow {
  name: string;
  source: EventSourceValue;
  occurrences: number;
  first_seen: Date;
  last_seen: Date;
}

/** A group of events' count and first and last times. */
const groupStatistics = [
  sql<number>`count(*)::int`.as("occurrences"),
  sql<Date>`min(e."timestamp")`.as("first_seen"),
  sql<Date>`max(e."timestamp")`.as("last_seen"),
] as const;

/** The filtered events grouped by name and source, with their count and first and last times. */
const eventNames = (db: Executor, filter: EventFilter) =>
  filtered(db, filter)
    .select(["e.name", "e.source", ...groupStatistics])
    .groupBy(["e.name", "e.source"]);

/** The same statistics per organization too: those of the organizations' event types. */
export const eventStatisticsByOrganization = (db: Executor, filter: EventFilter) =>
  filtered(db, filter)
    .select(["e.organization_id", "e.name", "e.source", ...groupStatistics])
    .groupBy(["e.organization_id", "e.name", "e.source"]);

export const countEventNames = (db: Executor, filter: EventFilter): Promise<number> =>
  countRows(db.selectFrom(eventNames(db, filter).as("n")));

export function listEventNames(
  db: Executor,
  filter: EventFilter,
  sorting: readonly SortCriterion<EventNameSortKey>[],
  window: { limit: number; offset: number },
): Promise<EventNameRow[]> {
  let query = db.selectFrom(eventNames(db, filter).as("n")).selectAll("n");
  for (const { key, direction } of sorting) query = query.orderBy(`n.${key}`, direction);
  // Name and source identify a row: pages never repeat or skip one.
  return query.orderBy("n.name").orderBy("n.source").limit(window.limit).offset(window.offset).execute();
}

// What customers read of their events, inside their own statements (customers is below events:
// services.ts hands this to it, `customers/customer-dependent-reads.ts`).

/** The timestamp of the organization's earliest user event whose `customer` column is `value` (null when there is none). */
export const earliestUserEventAt = (
  organizationId: Expression<string>,
  customer: "customer_id" | "external_customer_id",
  value: Expression<string | null>,
): RawBuilder<Date | null> =>
  sql<Date | null>`(SELECT min(e."timestamp") FROM events e WHERE e.organization_id = ${organizationId} AND ${sql.ref(`e.${customer}`)} = ${value} AND e.source = 'user')`;
