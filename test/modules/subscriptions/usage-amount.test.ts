import { describe, expect, it } from "vitest";
import { decimalExcess, isPositiveDecimal, usageAmount } from "../../../src/modules/subscriptions/usage-amount.ts";

describe("usageAmount: unit × quantity, rounded half away from zero once, then capped", () => {
  it.each([
    ["12.5", "3", null, 38], // 37.5 rounds up
    ["12.5", "1", null, 13], // 12.5 rounds up
    ["0.5", "1", null, 1], // exactly half a cent
    ["0.499999999999", "1", null, 0], // a hair under half
    ["0.000000000001", "499999999999", null, 0], // 0.499999999999
    ["0.000000000001", "500000000000", null, 1], // 0.5 exactly, 12 decimals
    ["1.5", "0.333", null, 0], // 0.4995
    ["1.5", "0.334", null, 1], // 0.501
    ["10", "0", null, 0],
    ["10", "-4", null, 0], // never negative
    ["10", "2.50000", null, 25], // a numeric's trailing zeros change nothing
  ])("%s × %s (cap %s) = %i", (unit, quantity, cap, expected) => {
    expect(usageAmount(unit, quantity, cap)).toBe(expected);
  });

  it("caps: under, exactly at and over the cap; a cap of zero makes usage free", () => {
    expect(usageAmount("40", "2", 100)).toBe(80);
    expect(usageAmount("50", "2", 100)).toBe(100);
    expect(usageAmount("49.995", "2", 100)).toBe(100); // 99.99 rounds to the cap exactly
    expect(usageAmount("40", "3", 100)).toBe(100);
    expect(usageAmount("40", "3", 0)).toBe(0);
  });

  it("stays exact for huge quantities, where a float would not", () => {
    // The largest amount an order holds exactly; one more unit is refused below.
    expect(usageAmount("1", "9007199254740991", null)).toBe(Number.MAX_SAFE_INTEGER);
    // 9 007 199 254 740 990.5 cents at the 12th decimal: a float cannot hold the half.
    expect(usageAmount("0.000000000001", "9007199254740990500000000000", null)).toBe(9007199254740991);
    expect(usageAmount("0.000000000001", "9007199254740990499999999999", null)).toBe(9007199254740990);
    expect(usageAmount("0.5", "18014398509481981", null)).toBe(9007199254740991); // 9007199254740990.5 rounds up
    expect(usageAmount("3", "123456789012345678901234567890", 1000)).toBe(1000);
    expect(() => usageAmount("1", "9007199254740992", null)).toThrow(RangeError);
  });

  it("rejects what is not a decimal", () => {
    expect(() => usageAmount("1e3", "1", null)).toThrow(RangeError);
    expect(() => usageAmount("1", "NaN", null)).toThrow(RangeError);
  });

  it("tells a positive quantity exactly", () => {
    expect(isPositiveDecimal("0.000000000001")).toBe(true);
    expect(isPositiveDecimal("0.000")).toBe(false);
    expect(isPositiveDecimal("-1")).toBe(false);
  });
});

describe("decimalExcess: the units left to bill after credits, max(0, used − credited), exactly", () => {
  it.each([
    ["3", "5", "0"], // credits larger than usage
    ["5", "5", "0"], // equal
    ["8", "5", "3"], // smaller
    ["5.000", "5", "0"], // equal at another scale
    ["0.000000000001", "0", "0.000000000001"],
    ["5.25", "5", "0.25"],
    ["5", "4.999999999999", "0.000000000001"],
    ["123456789012345678901234567890", "1", "123456789012345678901234567889"],
    ["0", "0", "0"],
    ["-2", "0", "0"],
  ])("%s − %s = %s", (used, credited, expected) => {
    expect(decimalExcess(used, credited)).toBe(expected);
  });

  it("rounds once, after the credits: 2.5 units left at 1.5 cents are 3.75 → 4", () => {
    expect(usageAmount("1.5", decimalExcess("7.5", "5"), null)).toBe(4);
    expect(usageAmount("1.5", decimalExcess("7.5", "7.5"), null)).toBe(0);
  });
});
