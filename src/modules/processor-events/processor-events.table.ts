import type { ColumnType, Generated, Selectable } from "kysely";

/** Who sent the event; one source today, the column keeps ids of two processors apart. */
export type ProcessorEventSource = "stripe";

export interface ProcessorEventsTable {
  id: Generated<string>;
  source: ProcessorEventSource;
  /** The processor's own event id (`evt_…`): a redelivery carries the same one. */
  external_id: string;
  type: string;
  /** The event as the processor signed it, parsed. */
  payload: ColumnType<unknown, string, never>;
  received_at: Date;
  /** Set in the transaction of what the event changed; null until then. */
  handled_at: Date | null;
}
export type ProcessorEventRow = Selectable<ProcessorEventsTable>;
