import { sql, type Updateable } from "kysely";
import type { Executor } from "../../db/database.ts";
import { countRows } from "../../db/count-rows.ts";
import type { OrganizationScope } from "../../http/auth.ts";
import { containsPattern, type SortCriterion } from "../../schema/pagination.ts";
import { eventStatisticsByOrganization, type EventFilter } from "./events.repository.ts";
import type { EventTypesTable } from "./events.table.ts";
import type { EventTypeSortKey } from "./event-types.schemas.ts";

/**
 * The filtered events' statistics per organization, name and source, with the event type of each
 * user name (a user name without one is left out) and a label: the type's, else the name (system
 * names have no type). `text` is in the name or the label, case-insensitive.
 */
function eventTypeStatistics(db: Executor, filter: EventFilter, text: string | undefined) {
  const query = db
    .selectFrom(eventStatisticsByOrganization(db, filter).as("s"))
    .leftJoin("event_types as t", (join) =>
      join.onRef("t.organization_id", "=", "s.organization_id").onRef("t.name", "=", "s.name").on("s.source", "=", "user"),
    )
    .where((eb) => eb.or([eb("s.source", "=", "system"), eb("t.id", "is not", null)]))
    .select([
      "t.id",
      "t.created_at",
      "t.modified_at",
      "s.organization_id",
      "s.name",
      sql<string>`COALESCE(t.label, s.name)`.as("label"),
      "t.label_property_selector",
      "s.source",
      "s.occurrences",
      "s.first_seen",
      "s.last_seen",
    ]);
  if (text === undefined) return query;
  const pattern = containsPattern(text);
  return query.where((eb) => eb.or([eb("s.name", "ilike", pattern), eb(sql<string>`COALESCE(t.label, s.name)`, "ilike", pattern)]));
}
export type EventTypeStatisticsRow = Awaited<ReturnType<typeof listEventTypeStatistics>>[number];

export const countEventTypeStatistics = (db: Executor, filter: EventFilter, text: string | undefined): Promise<number> =>
  countRows(eventTypeStatistics(db, filter, text));

export function listEventTypeStatistics(
  db: Executor,
  filter: EventFilter,
  text: string | undefined,
  sorting: readonly SortCriterion<EventTypeSortKey>[],
  window: { limit: number; offset: number },
) {
  let query = db.selectFrom(eventTypeStatistics(db, filter, text).as("x")).selectAll("x");
  for (const { key, direction } of sorting) query = query.orderBy(`x.${key}`, direction);
  // Organization, name and source identify a row: pages never repeat or skip one.
  return query.orderBy("x.organization_id").orderBy("x.name").orderBy("x.source").limit(window.limit).offset(window.offset).execute();
}

export const findEventTypeForUpdate = (db: Executor, id: string, allowed: OrganizationScope) => {
  let query = db.selectFrom("event_types").selectAll().where("id", "=", id);
  if (allowed !== null) query = query.where("organization_id", "in", allowed);
  return query.forUpdate().executeTakeFirst();
};

export const updateEventType = (db: Executor, id: string, values: Updateable<EventTypesTable>) =>
  db.updateTable("event_types").set(values).where("id", "=", id).returningAll().executeTakeFirstOrThrow();
