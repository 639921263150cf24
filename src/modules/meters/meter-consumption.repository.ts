import { sql, type RawBuilder, type SqlBool } from "kysely";
import type { Executor } from "../../db/database.ts";
import { customerKey } from "./meter-aggregates.repository.ts";
import { bucketRows, unaggregatedEvents, type MeterState } from "./meter-bucket-reads.repository.ts";
import { aggregatedValue, compileFilter } from "./meter-filter.repository.ts";
import { meterQuantity } from "./meter-quantities.repository.ts";
import { meterDependentReads } from "./meter-dependent-reads.ts";

/** A window of event timestamps: from `since` (all time when null) to before `until` (no end when null). */
export interface ConsumptionWindow {
  since: Date | null;
  until: Date | null;
}

/**
 * The meter's function over a customer's events in a window, as a numeric SQL expression: the
 * whole hours inside it from the buckets, plus the raw events of the (at most two) hours its edges
 * cut, plus the raw events of the whole hours that no bucket holds yet (`unaggregatedEvents`). The
 * cost follows the customer's hours and the last seconds' events, never the number of events
 * (docs/decisions.md, "Customer meters and credits").
 */
function consumption(meter: MeterState, keys: readonly string[], window: ConsumptionWindow): RawBuilder<unknown> {
  const { numeric, value } = aggregatedValue(meter.aggregation, "e");
  const firstWhole: RawBuilder<Date> =
    window.since === null
      ? sql`'-infinity'::timestamptz`
      : sql`date_trunc('hour', ${window.since}::timestamptz + interval '1 hour' - interval '1 microsecond')`;
  // The whole hours end where the hour of `until` starts, never before they begin (a window inside one hour has none).
  const wholeEnd: RawBuilder<Date> =
    window.until === null ? sql`'infinity'::timestamptz` : sql`greatest(${firstWhole}, date_trunc('hour', ${window.until}::timestamptz))`;
  const head =
    window.since === null
      ? sql`false`
      : sql`(e."timestamp" >= ${window.since}::timestamptz AND e."timestamp" < least(${firstWhole}, ${window.until ?? "infinity"}::timestamptz))`;
  const tail = window.until === null ? sql`false` : sql`(e."timestamp" >= ${wholeEnd} AND e."timestamp" < ${window.until}::timestamptz)`;
  const unaggregated = sql`(${unaggregatedEvents(meter, "e")} AND e."timestamp" >= ${firstWhole} AND e."timestamp" < ${wholeEnd})`;
  const rawScope: RawBuilder<SqlBool> = sql`(${head} OR ${tail} OR ${unaggregated})`;
  const raw = sql`SELECT e.* FROM ${meterDependentReads().eventRows} e WHERE e.organization_id = ${meter.organization_id}::uuid AND ${customerKey("e")} = ANY(${keys}::text[])
    AND ${rawScope} AND ${compileFilter(meter.filter, "e")}`;
  const buckets = sql`b.meter_id = ${meter.id}::uuid AND b.customer_key = ANY(${keys}::text[]) AND b.bucket >= ${firstWhole} AND b.bucket < ${wholeEnd}`;
  const rows =
    meter.aggregation.func === "unique"
      ? sql`SELECT b.value FROM meter_bucket_values b WHERE ${buckets}
        UNION ALL SELECT ${value} FROM (${raw}) e WHERE ${value} IS NOT NULL`
      : sql`SELECT b.events, b."values", b.sum, b.min, b.max FROM ${bucketRows} b WHERE ${buckets}
        UNION ALL SELECT 1, CASE WHEN ${numeric} IS NULL THEN 0 ELSE 1 END, ${numeric}, ${numeric}, ${numeric} FROM (${raw}) e`;
  return sql`SELECT ${meterQuantity(meter.aggregation.func)} AS quantity FROM (${rows}) r`;
}

/** What a customer consumed of a meter in a window, as one number (what the customer meters show). */
export async function consumedUnits(
  db: Executor,
  meter: MeterState,
  customerKeys: readonly string[],
  window: ConsumptionWindow,
): Promise<number> {
  if (customerKeys.length === 0) return 0;
  const { rows } = await sql<{
    quantity: number;
  }>`SELECT quantity::float8 AS quantity FROM (${consumption(meter, customerKeys, window)}) q`.execute(db);
  return rows[0]?.quantity ?? 0;
}

/** The same as an exact decimal string (the `numeric` as text): what billing subtracts credits with. */
export async function consumedUnitsExact(
  db: Executor,
  meter: MeterState,
  customerKeys: readonly string[],
  window: ConsumptionWindow,
): Promise<string> {
  if (customerKeys.length === 0) return "0";
  const { rows } = await sql<{
    quantity: string;
  }>`SELECT quantity::numeric::text AS quantity FROM (${consumption(meter, customerKeys, window)}) q`.execute(db);
  return rows[0]?.quantity ?? "0";
}
