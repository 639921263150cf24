import { createHash } from "node:crypto";
import type { Executor } from "../../db/database.ts";
import { toIso } from "../../schema/primitives.ts";
import { toMeter } from "../meters/meters.mapper.ts";
import { findMeter } from "../meters/meters.steps.ts";
import * as usageRepo from "./subscription-usage.repository.ts";
import { meteredPriceUsage, type MeteredPrice } from "./subscription-usage.ts";
import type { SubscriptionMeter } from "./subscriptions.schemas.ts";
import type { SubscriptionRow } from "./subscriptions.table.ts";

/**
 * A stable id for a subscription's meter, which is computed, not stored: the subscription and the
 * meter hashed into the shape of a UUID v4 (the reference's format).
 */
function subscriptionMeterId(subscriptionId: string, meterId: string): string {
  const hex = createHash("sha256").update(`${subscriptionId}:${meterId}`).digest("hex");
  const variant = ((Number.parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/**
 * The meters of a subscription's metered prices for its current period so far, [period start,
 * min(now, period end)), one per meter (the amounts of several prices on one meter added): consumed
 * units, the credited units the period subtracts, and the amount the period would charge now. A
 * trial's usage is free, so its amount is 0. Computed when read (docs/decisions.md, "Subscription
 * meters"), in the caller's read-committed transaction (the reads lock the customer meters `FOR SHARE`).
 */
export async function subscriptionMeters(
  trx: Executor,
  row: Pick<SubscriptionRow, "id" | "customer_id" | "created_at" | "status" | "current_period_start" | "current_period_end">,
  now: Date,
  /** The subscription's metered prices when the caller read them in this transaction (and nothing changed them since). */
  known?: readonly MeteredPrice[],
): Promise<SubscriptionMeter[]> {
  const prices = known ?? (await usageRepo.meteredPrices(trx, row.id));
  const to = now < row.current_period_end ? now : row.current_period_end;
  const byMeter = new Map<string, SubscriptionMeter>();
  for (const price of prices) {
    if (price.meter_id === null) continue;
    const usage = await meteredPriceUsage(trx, row.customer_id, price, row.current_period_start, to);
    // The price's own meter: no organization scope to apply.
    const meter = await findMeter(trx, price.meter_id, null);
    if (!meter) continue;
    const amount = row.status === "trialing" ? 0 : (usage?.amount ?? 0);
    const seen = byMeter.get(meter.id);
    if (seen) {
      seen.amount += amount;
      continue;
    }
    byMeter.set(meter.id, {
      id: subscriptionMeterId(row.id, meter.id),
      created_at: toIso(row.created_at),
      modified_at: null,
      consumed_units: Number(usage?.quantity ?? 0),
      // Whole units: what is left of the credits after fractional usage before the period rounds down.
      credited_units: Math.floor(Number(usage?.credited ?? 0)),
      amount,
      meter_id: meter.id,
      meter: toMeter(meter),
    });
  }
  return [...byMeter.values()];
}
