import { sql, type RawBuilder, type SqlBool } from "kysely";
import type { Executor } from "../../db/database.ts";
import { customerKey } from "./meter-aggregates.repository.ts";
import { aggregatedValue, compileFilter } from "./meter-filter.ts";
import { meterQuantity } from "./meter-quantities.repository.ts";
import type { MeterRow } from "./meters.table.ts";

/**
 * What a customer consumed of a meter since `since` (all time when null), as one number: the
 * meter's function over the customer's whole hours from the buckets (every hour from the first
 * whole one on: the window has no end, it runs to now), plus the raw events of the hour `since`
 * cuts (one hour at most), plus, while the meter's back-fill is pending, the raw events ingested
 * before its cut (they are not in the buckets yet). The cost follows the customer's hours, never
 * the number of events (docs/decisions.md, "Customer meters and credits").
 *
 * Read it in a repeatable-read transaction with the meter row, as the quantities do, so a back-fill
 * committing in between is neither counted twice nor missed.
 */
export async function consumedUnits(db: Executor, meter: MeterRow, customerKeys: readonly string[], since: Date | null): Promise<number> {
  if (customerKeys.length === 0) return 0;
  const keys = [...customerKeys];
  const { numeric, value } = aggregatedValue(meter.aggregation, "e");
  const firstWhole: RawBuilder<Date> =
    since === null
      ? sql`'-infinity'::timestamptz`
      : sql`date_trunc('hour', ${since}::timestamptz + interval '1 hour' - interval '1 microsecond')`;
  const pending = meter.backfilled_at === null ? meter.backfill_cut : null;
  // The raw events: the cut hour before the first whole one, and the pending back-fill's after it.
  const rawScope: RawBuilder<SqlBool> = sql`(${since === null ? sql`false` : sql`e."timestamp" >= ${since}::timestamptz AND e."timestamp" < ${firstWhole}`}
    OR ${pending === null ? sql`false` : sql`(e.ingested_at < ${pending}::timestamptz AND e."timestamp" >= ${firstWhole})`})`;
  const raw = sql`SELECT e.* FROM events e WHERE e.organization_id = ${meter.organization_id}::uuid AND ${customerKey("e")} = ANY(${keys}::text[])
    AND ${rawScope} AND ${compileFilter(meter.filter, "e")}`;
  const rows =
    meter.aggregation.func === "unique"
      ? sql`SELECT b.value FROM meter_bucket_values b
          WHERE b.meter_id = ${meter.id}::uuid AND b.customer_key = ANY(${keys}::text[]) AND b.bucket >= ${firstWhole}
        UNION ALL SELECT ${value} FROM (${raw}) e WHERE ${value} IS NOT NULL`
      : sql`SELECT b.events, b."values", b.sum, b.min, b.max FROM meter_buckets b
          WHERE b.meter_id = ${meter.id}::uuid AND b.customer_key = ANY(${keys}::text[]) AND b.bucket >= ${firstWhole}
        UNION ALL SELECT 1, CASE WHEN ${numeric} IS NULL THEN 0 ELSE 1 END, ${numeric}, ${numeric}, ${numeric} FROM (${raw}) e`;
  const { rows: out } = await sql<{
    quantity: number;
  }>`SELECT (${meterQuantity(meter.aggregation.func)})::float8 AS quantity FROM (${rows}) r`.execute(db);
  return out[0]?.quantity ?? 0;
}
