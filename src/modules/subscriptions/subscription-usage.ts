import type { Executor } from "../../db/database.ts";
import { customerCredits, customerUsage } from "../meters/meters.steps.ts";
import type { PriceLine } from "./subscription-proration.ts";
import * as usageRepo from "./subscription-usage.repository.ts";
import type { SubscriptionRow } from "./subscriptions.table.ts";
import { decimalExcess, isPositiveDecimal, usageAmount } from "./usage-amount.ts";

// Metered prices bill in arrears (docs/decisions.md, "Metered billing"): when a period closes, each
// metered price charges the customer's usage of its meter over [period start, period end) by event
// timestamp, less the customer's credited units of that meter. What each closed period was charged
// (and the credits it subtracted) is recorded; every later closing re-reads those periods and bills
// what arrived since, against the same credits, as a separate late line, so a late event is charged once.

const dateOf = (instant: Date) => instant.toISOString().slice(0, 10);

export type MeteredPrice = Awaited<ReturnType<typeof usageRepo.meteredPrices>>[number];

/** What a metered price charges a customer for [from, to): the usage, the credits it subtracts, the amount. */
export interface PriceUsage {
  quantity: string;
  credited: string;
  amount: number;
}

/**
 * A metered price's usage over [from, to) for the customer, less the credited units of the
 * customer's meter left at `from` (docs/decisions.md, "Metered billing: credits"), priced by the
 * one rounding rule. Null when the price has no meter or its meter is gone (read over a non-empty range). Reads lock
 * the customer meter `FOR SHARE`: run it in a read-committed transaction.
 */
export async function meteredPriceUsage(
  trx: Executor,
  customerId: string,
  price: Pick<MeteredPrice, "meter_id" | "unit_amount" | "cap_amount">,
  from: Date,
  to: Date,
): Promise<PriceUsage | null> {
  if (price.meter_id === null) return null;
  // An empty range (a period that has just begun) used nothing; its credits still tell.
  const quantity = to > from ? await customerUsage(trx, { meterId: price.meter_id, customerId, from, to }) : "0";
  if (quantity === null) return null;
  const credits = await customerCredits(trx, { meterId: price.meter_id, customerId, before: from });
  const credited = credits === null ? "0" : decimalExcess(credits.credited, credits.consumedBefore);
  return { quantity, credited, amount: usageAmount(price.unit_amount ?? "0", decimalExcess(quantity, credited), price.cap_amount) };
}

/**
 * The usage lines of the locked subscription's closing period [current_period_start,
 * current_period_end), from the end of the last billed period when that is later (after a pause),
 * none for a trial period (usage during a trial is free); then the late lines of its earlier
 * periods. The charges are recorded in the caller's transaction, which writes the order billing the
 * lines too. A line per metered price with usage, even when its cap or credits make it free; late
 * lines only when they add to an amount.
 */
export async function closePeriodUsage(trx: Executor, row: SubscriptionRow, now: Date): Promise<PriceLine[]> {
  return (await closePeriodUsageWithPrices(trx, row, now)).lines;
}

/**
 * closePeriodUsage, answering too the subscription's metered prices when it read them (null when
 * it did not: a trial, an empty period), for a caller that reads the subscription's meters next.
 */
export async function closePeriodUsageWithPrices(
  trx: Executor,
  row: SubscriptionRow,
  now: Date,
): Promise<{ lines: PriceLine[]; meteredPrices: MeteredPrice[] | null }> {
  const lines: PriceLine[] = [];
  const quantityOf = (meterId: string | null, from: Date, to: Date) =>
    meterId === null ? Promise.resolve(null) : customerUsage(trx, { meterId, customerId: row.customer_id, from, to });
  const charges = await usageRepo.usageChargesOf(trx, row.id);
  for (const charge of charges) {
    const quantity = await quantityOf(charge.meter_id, charge.period_start, charge.period_end);
    if (quantity === null || quantity === charge.quantity) continue;
    const amount = usageAmount(charge.unit_amount ?? "0", decimalExcess(quantity, charge.credited_units), charge.cap_amount);
    await usageRepo.updateUsageCharge(trx, charge.id, { quantity, amount: Math.max(amount, charge.amount), modified_at: now });
    if (amount > charge.amount) {
      const label = `${charge.meter_name ?? "Usage"} (late usage, ${dateOf(charge.period_start)} to ${dateOf(charge.period_end)})`;
      lines.push({ priceId: charge.product_price_id, amount: amount - charge.amount, label });
    }
  }

  // From where the last billed usage ended, so periods never overlap (a resume after a pause restarts the period).
  const lastEnd = charges.reduce<Date | null>(
    (last, charge) => (last === null || charge.period_end > last ? charge.period_end : last),
    null,
  );
  const period = {
    from: lastEnd !== null && lastEnd > row.current_period_start ? lastEnd : row.current_period_start,
    to: row.current_period_end,
  };
  if (row.status === "trialing" || period.to <= period.from) return { lines, meteredPrices: null };
  const current: PriceLine[] = [];
  const meteredPrices = await usageRepo.meteredPrices(trx, row.id);
  for (const price of meteredPrices) {
    const usage = await meteredPriceUsage(trx, row.customer_id, price, period.from, period.to);
    if (usage === null) continue;
    await usageRepo.insertUsageCharge(trx, {
      created_at: now,
      modified_at: null,
      organization_id: row.organization_id,
      subscription_id: row.id,
      product_price_id: price.id,
      period_start: period.from,
      period_end: period.to,
      quantity: usage.quantity,
      amount: usage.amount,
      credited_units: usage.credited,
    });
    if (isPositiveDecimal(usage.quantity)) current.push({ priceId: price.id, amount: usage.amount, label: price.meter_name ?? "Usage" });
  }
  return { lines: [...current, ...lines], meteredPrices };
}
