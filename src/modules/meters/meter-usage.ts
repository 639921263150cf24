import type { Executor } from "../../db/database.ts";
import { meterQuantities } from "./meter-quantities.repository.ts";
import { customerKeysOf } from "./meters.repository.ts";
import { toMeterSpec } from "./meters.mapper.ts";

const DAY_MS = 86_400_000;

/**
 * A customer's quantity of a meter over the exact range [from, to) of event timestamps, as an exact
 * decimal string, from the pre-aggregates (whole hours) and the raw events of the edge hours; what
 * billing charges. The meter row is read `FOR SHARE`, so a back-fill (which locks it to mark itself
 * done) cannot land between reading its state and reading the buckets: the count stays exact inside
 * the caller's transaction whatever its isolation. Null when the meter is gone.
 */
export async function customerUsage(
  trx: Executor,
  input: { meterId: string; customerId: string; from: Date; to: Date },
): Promise<string | null> {
  const meter = await trx.selectFrom("meters").selectAll().where("id", "=", input.meterId).forShare().executeTakeFirst();
  if (!meter) return null;
  const [row] = await meterQuantities(trx, {
    meter: toMeterSpec(meter),
    pendingCut: meter.backfilled_at === null ? meter.backfill_cut : null,
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
