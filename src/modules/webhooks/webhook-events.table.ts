import type { ColumnType, Generated, Selectable } from "kysely";
import type { JsonValue } from "../../db/json.ts";

export interface WebhookEventsTable {
  id: Generated<string>;
  created_at: Generated<Date>;
  organization_id: string;
  type: string;
  /** The body as delivered: `{type, timestamp, data}`. */
  payload: ColumnType<{ type: string; timestamp: string; data: JsonValue }, string, never>;
  /** The object the event is about (`order:<id>`, …): events of one object are delivered in order. */
  ordering_key: string;
  /** Order of recording: insertion order, also within one transaction. */
  position: Generated<number>;
  /** Set once the event has been copied to every subscribed endpoint. */
  fanned_out_at: Generated<Date | null>;
}
export type WebhookEventRow = Selectable<WebhookEventsTable>;
