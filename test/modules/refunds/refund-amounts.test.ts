import { describe, expect, it } from "vitest";
import { scaleHalfToEven } from "../../../src/values/money.ts";
import { refundableAmount, refundableTaxAmount } from "../../../src/modules/orders/order-amounts.ts";
import { refundTaxShare, statusAfterRefund } from "../../../src/modules/refunds/refund-amounts.ts";

const order = (net: number, tax: number, refunded = 0, refundedTax = 0, appliedBalance = 0) => ({
  net_amount: net,
  tax_amount: tax,
  refunded_amount: refunded,
  refunded_tax_amount: refundedTax,
  applied_balance_amount: appliedBalance,
});

describe("scaleHalfToEven", () => {
  it("rounds exact halves to the even neighbour and everything else to the nearest", () => {
    expect(scaleHalfToEven(1, 1, 2)).toBe(0); // 0.5
    expect(scaleHalfToEven(3, 1, 2)).toBe(2); // 1.5
    expect(scaleHalfToEven(5, 1, 2)).toBe(2); // 2.5
    expect(scaleHalfToEven(7, 1, 2)).toBe(4); // 3.5
    expect(scaleHalfToEven(2501, 1, 1000)).toBe(3); // 2.501
    expect(scaleHalfToEven(2499, 1, 1000)).toBe(2); // 2.499
    expect(scaleHalfToEven(0, 7, 3)).toBe(0);
  });

  it("stays exact where the product passes 2^53", () => {
    // 999 999 999 999² / 10¹² = 999 999 999 998.000000000001 (a float product would have lost the tail)
    expect(scaleHalfToEven(999_999_999_999, 999_999_999_999, 1_000_000_000_000)).toBe(999_999_999_998);
    expect(scaleHalfToEven(999_999_999_999, 3, 2)).toBe(1_499_999_999_998); // …998.5 → even
  });

  it("refuses a zero or negative denominator and negative operands", () => {
    expect(() => scaleHalfToEven(1, 1, 0)).toThrow(RangeError);
    expect(() => scaleHalfToEven(-1, 1, 2)).toThrow(RangeError);
  });
});

describe("refundTaxShare: the one rule for a refund's tax", () => {
  it("is amount × tax / net, half to even, on a partial refund", () => {
    // net 1000, tax 25: 20 → 0.5 → 0; 60 → 1.5 → 2; 100 → 2.5 → 2; 140 → 3.5 → 4; 101 → 2.525 → 3
    expect([20, 60, 100, 140, 101, 1].map((amount) => refundTaxShare(order(1000, 25), amount))).toEqual([0, 2, 2, 4, 3, 0]);
  });

  it("refunds all the remaining tax with the remaining amount, whatever the ratio says", () => {
    expect(refundTaxShare(order(1000, 25), 1000)).toBe(25);
    // 999 refunded with 24 of tax (rounded up along the way): the last cent carries the last 1.
    expect(refundTaxShare(order(1000, 25, 999, 24), 1)).toBe(1);
    // Rounded down along the way: the last cent carries what is left, not its ratio.
    expect(refundTaxShare(order(1000, 25, 999, 20), 1)).toBe(5);
  });

  it("never refunds more tax than remains, so a sequence of refunds adds up to the tax exactly", () => {
    let current = order(2500, 500);
    const shares: number[] = [];
    for (const amount of [833, 833, 833, 1]) {
      const share = refundTaxShare(current, amount);
      shares.push(share);
      current = { ...current, refunded_amount: current.refunded_amount + amount, refunded_tax_amount: current.refunded_tax_amount + share };
    }
    // 833 × 0.2 = 166.6 → 167 twice, then capped at the 166 left, and the last cent refunds none.
    expect(shares).toEqual([167, 167, 166, 0]);
    expect(shares.reduce((a, b) => a + b, 0)).toBe(500);
  });

  it("is 0 for an untaxed or a free order", () => {
    expect(refundTaxShare(order(1000, 0), 500)).toBe(0);
    expect(refundTaxShare(order(0, 0), 1)).toBe(0);
  });
});

describe("refundable amounts and the status after a refund", () => {
  it("count the applied balance, earlier refunds, and never go below 0", () => {
    expect(refundableAmount(order(1000, 200, 300, 60))).toBe(700);
    expect(refundableTaxAmount(order(1000, 200, 300, 60))).toBe(140);
    // A customer balance of 250 paid part of the order: only the rest came through the processor.
    expect(refundableAmount(order(1000, 200, 0, 0, -250))).toBe(750);
    expect(refundableAmount(order(1000, 200, 1200, 0))).toBe(0);
    expect(refundableTaxAmount(order(1000, 200, 0, 260))).toBe(0);
  });

  it("is refunded at the refundable base, partially refunded below it", () => {
    expect(statusAfterRefund(order(1000, 200), 999)).toBe("partially_refunded");
    expect(statusAfterRefund(order(1000, 200), 1000)).toBe("refunded");
    expect(statusAfterRefund(order(1000, 200, 0, 0, -250), 750)).toBe("refunded");
  });
});
