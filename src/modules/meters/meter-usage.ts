import type { Executor } from "../../db/database.ts";
import { consumedUnitsExact } from "./meter-consumption.repository.ts";
import { meterQuantities } from "./meter-quantities.repository.ts";
import { meterDependentReads } from "./meter-dependent-reads.ts";
import { customerKeysOf, findMeter, referencedMeter } from "./meters.repository.ts";

const DAY_MS = 86_400_000;

/**
 * A customer's quantity of a meter over the exact range [from, to) of event timestamps, as an exact
 * decimal string, from the pre-aggregates (whole hours) and the raw events of the edge hours and
 * of those no bucket holds yet; what billing charges. Exact whatever the caller's isolation: the
 * statement reads the meter's aggregation state itself (`unaggregatedEvents`). Null when the meter
 * is gone.
 */
export async function customerUsage(
  trx: Executor,
  input: { meterId: string; customerId: string; from: Date; to: Date },
): Promise<string | null> {
  const meter = await findMeter(trx, input.meterId, null);
  if (!meter) return null;
  const [row] = await meterQuantities(trx, {
    meter,
    // Daily points a day past the end cover every day the range touches; `within` cuts it exactly.
    start: input.from,
    end: new Date(input.to.getTime() + DAY_MS),
    interval: "day",
    timezone: "UTC",
    customerKeys: await customerKeysOf(trx, meter.organization_id, [input.customerId], []),
    metadata: null,
    customerFunction: null,
    within: { from: input.from, to: input.to },
  });
  return row?.exact_total ?? "0";
}

/**
 * What a customer's credits of a meter leave for usage from `before` on: the units credited in its
 * customer meter's window, and what the customer consumed in that window before `before` (nothing
 * when the window opened at or after it), both exact decimal strings; none without a customer
 * meter. The row is read `FOR SHARE`, so a credit or reset cannot change it until the caller commits.
 */
export async function customerCredits(
  trx: Executor,
  input: { meterId: string; customerId: string; before: Date },
): Promise<{ credited: string; consumedBefore: string } | null> {
  const row = await meterDependentReads().customerMeterCreditsForShare(trx, input.customerId, input.meterId);
  if (!row) return null;
  const credited = String(row.credited_units);
  if (row.reset_at !== null && row.reset_at >= input.before) return { credited, consumedBefore: "0" };
  const meter = await referencedMeter(trx, input.meterId);
  const keys = await customerKeysOf(trx, meter.organization_id, [input.customerId], []);
  return { credited, consumedBefore: await consumedUnitsExact(trx, meter, keys, { since: row.reset_at, until: input.before }) };
}
