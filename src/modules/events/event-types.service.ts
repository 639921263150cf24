import type { Deps } from "../../context.ts";
import type { OrganizationScope } from "../../http/auth.ts";
import { RequestValidationError, ResourceNotFound, fieldIssue } from "../../http/errors.ts";
import { pageWindow, parseSorting, toPage } from "../../schema/pagination.ts";
import { toEventType, toEventTypeWithStats } from "./event-types.mapper.ts";
import { countEventTypeStatistics, findEventTypeForUpdate, listEventTypeStatistics, updateEventType } from "./event-types.repository.ts";
import type { EventType, EventTypeListQuery, EventTypeUpdate, ListResourceEventTypeWithStats } from "./event-types.schemas.ts";
import type { EventFilter } from "./events.repository.ts";

/** Each event type of the caller's organizations with its events' statistics, as filtered. */
async function listEventTypes(deps: Deps, query: EventTypeListQuery, allowed: OrganizationScope): Promise<ListResourceEventTypeWithStats> {
  const filter: EventFilter = {
    allowed,
    organizationIds: query.organization_id,
    customerIds: query.customer_id,
    externalCustomerIds: query.external_customer_id,
    sources: query.source === undefined ? undefined : [query.source],
    parentId: query.parent_id,
    // Depth 0: root events only.
    depth: query.root_events === true ? 0 : undefined,
  };
  const [total, rows] = await Promise.all([
    countEventTypeStatistics(deps.readDb, filter, query.query),
    listEventTypeStatistics(deps.readDb, filter, query.query, parseSorting(query.sorting), pageWindow(query)),
  ]);
  return toPage(rows.map(toEventTypeWithStats), total, query);
}

/** The label is trimmed and may not be blank; a blank selector clears it. */
async function updateEventTypeLabel(deps: Deps, id: string, body: EventTypeUpdate, allowed: OrganizationScope): Promise<EventType> {
  const label = body.label.trim();
  if (label === "") {
    throw new RequestValidationError([
      fieldIssue(["body", "label"], "String should have at least 1 character", body.label, "string_too_short", { min_length: 1 }),
    ]);
  }
  const selector = body.label_property_selector?.trim();
  const row = await deps.db.transaction().execute(async (trx) => {
    if (!(await findEventTypeForUpdate(trx, id, allowed))) throw new ResourceNotFound();
    return updateEventType(trx, id, {
      label,
      label_property_selector: selector === undefined || selector === "" ? null : selector,
      modified_at: deps.now(),
    });
  });
  return toEventType(row);
}

export function createEventTypeService(deps: Deps) {
  return {
    list: (query: EventTypeListQuery, allowed: OrganizationScope) => listEventTypes(deps, query, allowed),
    update: (id: string, body: EventTypeUpdate, allowed: OrganizationScope) => updateEventTypeLabel(deps, id, body, allowed),
  };
}
export type EventTypeService = ReturnType<typeof createEventTypeService>;
