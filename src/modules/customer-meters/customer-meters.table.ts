import type { ColumnType, Generated, Selectable } from "kysely";

// `bigint` columns, read as numbers (db/connection.ts parses INT8); credits are whole units.
type Units = ColumnType<number, number | undefined, number>;

/** A customer's meter: what is not in the meter's buckets (credits, the window's start). */
export interface CustomerMetersTable {
  id: Generated<string>;
  created_at: Date;
  modified_at: Date | null;
  organization_id: string;
  customer_id: string;
  meter_id: string;
  /** Units credited since the window opened, the carried-over ones included (never below 0). */
  credited_units: Units;
  /** The part of `credited_units` flagged rollover: the most a reset carries over. */
  rollover_units: Units;
  /** When the window of consumed units opened (the last reset); null: all time. */
  reset_at: Date | null;
}
export type CustomerMeterRow = Selectable<CustomerMetersTable>;
