import type { ColumnType, Generated, GeneratedAlways, Selectable } from "kysely";
import type { JsonValue } from "../../db/json.ts";

export type EventSourceValue = "system" | "user";

export interface EventsTable {
  id: Generated<string>;
  ingested_at: Generated<Date>;
  organization_id: string;
  source: Generated<EventSourceValue>;
  name: string;
  timestamp: Date;
  customer_id: string | null;
  external_customer_id: string | null;
  member_id: string | null;
  external_member_id: string | null;
  external_id: string | null;
  parent_id: string | null;
  /** Generated: the event's own id when it has no parent (migration 2026-12-04T0200). */
  root_id: GeneratedAlways<string | null>;
  metadata: ColumnType<Record<string, JsonValue>, string | undefined, string>;
}
export type EventRow = Selectable<EventsTable>;

/** An organization's user event name and the label it shows under; written when the name is first ingested. */
export interface EventTypesTable {
  id: Generated<string>;
  created_at: Date;
  modified_at: Date | null;
  organization_id: string;
  name: string;
  label: string;
  label_property_selector: string | null;
}
export type EventTypeRow = Selectable<EventTypesTable>;
