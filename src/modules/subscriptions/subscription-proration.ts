import { allocate, prorate } from "../../values/money.ts";

// The arithmetic of a change within a period: pure functions on integer minor units, no database.
// One rounding rule (docs/decisions.md, "Proration"): each entry is rounded half away from zero,
// once, from exact integers.

/** A price's part of a period: what it bills per period, and how its order item is labelled. */
export interface PriceLine {
  priceId: string;
  label: string;
  amount: number;
}

/** A credit (negative) or debit (positive) that waits for the next order of the subscription. */
export interface ProrationEntry {
  priceId: string;
  label: string;
  amount: number;
}

/** The share of the period still to run, as a fraction `part / whole` of its milliseconds: 0 once it has ended. */
export function remainingShare(period: { start: Date; end: Date }, now: Date): { part: number; whole: number } {
  const whole = Math.max(period.end.getTime() - period.start.getTime(), 1);
  return { part: Math.min(Math.max(period.end.getTime() - now.getTime(), 0), whole), whole };
}

/**
 * Each price's amount less its share of the period's discount. The discount is split in proportion
 * to the amounts (largest remainder), so the shares add up to the discount exactly.
 */
export function discountedLines(lines: readonly PriceLine[], discount: number): PriceLine[] {
  const shares = allocate(
    discount,
    lines.map((line) => line.amount),
  );
  return lines.map((line, index) => ({ ...line, amount: line.amount - (shares[index] ?? 0) }));
}

/**
 * The entries of a change made with `share` of the period left: a credit for what each old price
 * would have billed for the rest of the period, and a debit for what each new price bills for it.
 * A price in both lists with the same amount cancels out; entries that round to 0 are dropped.
 */
export function prorationEntries(
  change: { before: readonly PriceLine[]; after: readonly PriceLine[] },
  share: { part: number; whole: number },
  labels: { credit: (line: PriceLine) => string; debit: (line: PriceLine) => string },
): ProrationEntry[] {
  const entries: ProrationEntry[] = [];
  for (const after of change.after) {
    const before = change.before.find((line) => line.priceId === after.priceId);
    const delta = after.amount - (before?.amount ?? 0);
    if (delta !== 0) entries.push({ priceId: after.priceId, label: (delta > 0 ? labels.debit : labels.credit)(after), amount: delta });
  }
  for (const before of change.before) {
    if (before.amount !== 0 && !change.after.some((line) => line.priceId === before.priceId))
      entries.push({ priceId: before.priceId, label: labels.credit(before), amount: -before.amount });
  }
  return entries
    .map((entry) => ({ ...entry, amount: prorate(entry.amount, share.part, share.whole) }))
    .filter((entry) => entry.amount !== 0);
}

/**
 * Which waiting entries an order bills, given what it charges before them (`charge`, after its
 * discount): every debit, then the credits oldest first while the order stays at or above zero. A
 * credit larger than what is left is split: its `billed` part goes on this order, its `carried` rest
 * waits for the next one. A credit is never paid out, only set against later charges.
 */
export function billableEntries<E extends { id: string; amount: number }>(
  charge: number,
  entries: readonly E[],
): { billed: (E & { amount: number })[]; split: { id: string; billed: number; carried: number } | null } {
  const billed: E[] = entries.filter((entry) => entry.amount > 0);
  let available = charge + billed.reduce((sum, entry) => sum + entry.amount, 0);
  let split: { id: string; billed: number; carried: number } | null = null;
  for (const credit of entries.filter((entry) => entry.amount < 0)) {
    if (available <= 0) break;
    if (-credit.amount <= available) {
      billed.push(credit);
      available += credit.amount;
      continue;
    }
    split = { id: credit.id, billed: -available, carried: credit.amount + available };
    billed.push({ ...credit, amount: -available });
    available = 0;
  }
  return { billed, split };
}
