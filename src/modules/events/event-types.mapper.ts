import { toIso, toIsoOrNull } from "../../schema/primitives.ts";
import type { EventTypeStatisticsRow } from "./event-types.repository.ts";
import type { EventType, EventTypeWithStats } from "./event-types.schemas.ts";
import type { EventTypeRow } from "./events.table.ts";

export const toEventType = (row: EventTypeRow): EventType => ({
  id: row.id,
  created_at: toIso(row.created_at),
  modified_at: toIsoOrNull(row.modified_at),
  name: row.name,
  label: row.label,
  label_property_selector: row.label_property_selector,
  organization_id: row.organization_id,
});

/** A system event type has no row: its id and timestamps are null. */
export const toEventTypeWithStats = (row: EventTypeStatisticsRow): EventTypeWithStats => ({
  id: row.id,
  created_at: toIsoOrNull(row.created_at),
  modified_at: toIsoOrNull(row.modified_at),
  name: row.name,
  label: row.label,
  label_property_selector: row.label_property_selector,
  organization_id: row.organization_id,
  source: row.source,
  occurrences: row.occurrences,
  first_seen: toIso(row.first_seen),
  last_seen: toIso(row.last_seen),
});
