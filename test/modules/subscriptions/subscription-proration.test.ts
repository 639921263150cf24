import { describe, expect, it } from "vitest";
import {
  billableEntries,
  discountedLines,
  prorationEntries,
  remainingShare,
} from "../../../src/modules/subscriptions/subscription-proration.ts";

const labels = { credit: (line: { label: string }) => `-${line.label}`, debit: (line: { label: string }) => `+${line.label}` };

describe("remainingShare", () => {
  const period = { start: new Date("2027-04-01T00:00:00Z"), end: new Date("2027-05-01T00:00:00Z") };
  it("is what is left of the period, floored at nothing once it has ended and capped at all of it", () => {
    expect(remainingShare(period, new Date("2027-04-16T00:00:00Z"))).toEqual({ part: 15 * 86_400_000, whole: 30 * 86_400_000 });
    expect(remainingShare(period, new Date("2027-05-02T00:00:00Z")).part).toBe(0);
    expect(remainingShare(period, new Date("2027-03-01T00:00:00Z")).part).toBe(30 * 86_400_000);
  });
});

describe("prorationEntries", () => {
  const half = { part: 1, whole: 2 };
  it("credits each old price and debits each new one, halves rounded away from zero", () => {
    expect(
      prorationEntries(
        { before: [{ priceId: "a", label: "A", amount: 999 }], after: [{ priceId: "b", label: "B", amount: 3001 }] },
        half,
        labels,
      ),
    ).toEqual([
      { priceId: "b", label: "+B", amount: 1501 },
      { priceId: "a", label: "-A", amount: -500 },
    ]);
  });
  it("prorates the difference of a price kept with another amount, and drops what rounds to nothing", () => {
    const change = { before: [{ priceId: "s", label: "S", amount: 1000 }], after: [{ priceId: "s", label: "S", amount: 1001 }] };
    expect(prorationEntries(change, { part: 1, whole: 3 }, labels)).toEqual([]);
    expect(prorationEntries(change, half, labels)).toEqual([{ priceId: "s", label: "+S", amount: 1 }]);
    expect(prorationEntries({ before: change.after, after: change.before }, half, labels)).toEqual([
      { priceId: "s", label: "-S", amount: -1 },
    ]);
  });
});

describe("discountedLines", () => {
  it("splits a discount across the prices in proportion, the shares adding up to it exactly", () => {
    const lines = discountedLines(
      [
        { priceId: "a", label: "A", amount: 1000 },
        { priceId: "b", label: "B", amount: 2000 },
      ],
      1001,
    );
    // Shares 333.67 and 667.33 round down to 333 and 667; the unit left goes to the larger price.
    expect(lines.map((line) => line.amount)).toEqual([1000 - 333, 2000 - 668]);
  });
});

describe("billableEntries", () => {
  const entry = (id: string, amount: number) => ({ id, amount });
  it("bills every debit and the credits that fit, oldest first", () => {
    expect(billableEntries(1000, [entry("c1", -300), entry("d1", 200), entry("c2", -400)])).toEqual({
      billed: [entry("d1", 200), entry("c1", -300), entry("c2", -400)],
      split: null,
    });
  });
  it("splits the credit that would take the order below zero, and leaves later ones waiting", () => {
    expect(billableEntries(1000, [entry("c1", -700), entry("c2", -700), entry("c3", -50)])).toEqual({
      billed: [entry("c1", -700), entry("c2", -300)],
      split: { id: "c2", billed: -300, carried: -400 },
    });
  });
  it("bills no credit against an order of nothing", () => {
    expect(billableEntries(0, [entry("c1", -700)])).toEqual({ billed: [], split: null });
  });
});
