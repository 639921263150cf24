import type { ColumnType, Generated, Selectable } from "kysely";
import type { Metadata } from "../../schema/primitives.ts";
import type { MeterAggregation, MeterFilter, MeterUnit } from "./meters.schemas.ts";

type Json<T> = ColumnType<T, string, string>;

export interface MetersTable {
  id: Generated<string>;
  created_at: Date;
  modified_at: Date | null;
  organization_id: string;
  name: string;
  unit: MeterUnit;
  custom_label: string | null;
  custom_multiplier: number | null;
  filter: Json<MeterFilter>;
  aggregation: Json<MeterAggregation>;
  metadata: Json<Metadata>;
  archived_at: Date | null;
  /** Changes with the filter or the aggregation: a back-fill of an older generation does nothing. */
  generation: Generated<number>;
  /** Events ingested before this instant reach the buckets through the back-fill, the later ones through ingest. */
  backfill_cut: ColumnType<Date, Date | string, Date | string>;
  /** When the back-fill of this generation finished; null while it is pending. */
  backfilled_at: Date | null;
  /**
   * Events ingested from `backfill_cut` to this instant are in the buckets (the `meters:aggregate`
   * job moves it on); the later ones are read raw. Starts at `backfill_cut`.
   */
  aggregated_until: ColumnType<Date, Date | string, Date | string>;
}
export type MeterRow = Selectable<MetersTable>;

/** What aggregating needs of a meter. */
export type MeterSpec = Pick<MeterRow, "id" | "organization_id" | "filter" | "aggregation">;

/**
 * Per meter, customer (`c:<id>` or `e:<external id>`) and UTC hour: the exact partial aggregates.
 * `meter_buckets` holds one row per key; `meter_bucket_deltas`, the same columns, one row per batch
 * appended since the key's last compaction (reads add both up).
 */
export interface MeterBucketsTable {
  meter_id: string;
  customer_key: string;
  bucket: Date;
  events: ColumnType<string, string | number, string | number>;
  values: ColumnType<string, string | number, string | number>;
  sum: string | null;
  min: string | null;
  max: string | null;
}

/** The distinct values of the aggregated property per meter, customer and hour (for `unique`). */
export interface MeterBucketValuesTable {
  meter_id: string;
  customer_key: string;
  bucket: Date;
  value: ColumnType<unknown, string, string>;
}
