import { describe, expect, it } from "vitest";
import { allocate, includedTax } from "../../../src/kit/money.ts";
import { checkTaxId } from "../../../src/modules/tax/tax-id.ts";
import { rateTableTaxEngine } from "../../../src/modules/tax/tax.engine.ts";
import { STANDARD_RATE_BASIS_POINTS } from "../../../src/modules/tax/tax.rates.ts";

const query = { amount: 10_000, currency: "usd", behavior: "exclusive" as const, isBusiness: false, taxId: null };

describe("rate table tax engine", () => {
  it("charges each country's standard rate, and nothing where there is no entry", () => {
    expect(rateTableTaxEngine.calculate({ ...query, country: "FR" })).toEqual({ amount: 2000, basisPoints: 2000, reverseCharge: false });
    expect(rateTableTaxEngine.calculate({ ...query, country: "CH" }).amount).toBe(810);
    expect(rateTableTaxEngine.calculate({ ...query, country: "CA" }).amount).toBe(500);
    expect(rateTableTaxEngine.calculate({ ...query, country: "AU" }).amount).toBe(1000);
    expect(rateTableTaxEngine.calculate({ ...query, country: "NO" }).amount).toBe(2500);
    expect(rateTableTaxEngine.calculate({ ...query, country: "US" }).amount).toBe(0);
    expect(Object.keys(STANDARD_RATE_BASIS_POINTS)).toHaveLength(32);
  });

  it("reverse-charges only EU businesses whose VAT number validates for their country", () => {
    const business = { ...query, country: "FR" as const, isBusiness: true };
    expect(rateTableTaxEngine.calculate({ ...business, taxId: "FR61954506077" })).toEqual({
      amount: 0,
      basisPoints: 0,
      reverseCharge: true,
    });
    expect(rateTableTaxEngine.calculate({ ...business, taxId: "FR00000000000" }).amount).toBe(2000);
    expect(rateTableTaxEngine.calculate({ ...business, taxId: null }).amount).toBe(2000);
    expect(rateTableTaxEngine.calculate({ ...business, isBusiness: false, taxId: "FR61954506077" }).amount).toBe(2000);
    // The UK left the EU: no reverse charge there.
    expect(rateTableTaxEngine.calculate({ ...business, country: "GB", taxId: "GB980780684" }).amount).toBe(2000);
  });

  it("rounds half away from zero, for exclusive and inclusive amounts", () => {
    // 2.5 cents → 3; 19.99 × 20% = 3.998 → 4.00.
    expect(rateTableTaxEngine.calculate({ ...query, amount: 25, country: "NO" }).amount).toBe(6);
    expect(rateTableTaxEngine.calculate({ ...query, amount: 1999, country: "FR" }).amount).toBe(400);
    expect(rateTableTaxEngine.calculate({ ...query, amount: 1200, behavior: "inclusive", country: "GB" }).amount).toBe(200);
    expect(includedTax(1, 2000)).toBe(0);
    // 3 × 2000 / 12000 = 0.5 → 1.
    expect(includedTax(3, 2000)).toBe(1);
  });
});

describe("tax IDs", () => {
  it("normalizes, prefixes with the VAT country code and validates", () => {
    expect(checkTaxId("fr 61-954.506.077", "FR")).toEqual({ value: "FR61954506077", verified: true });
    expect(checkTaxId("094259216", "GR")).toEqual({ value: "EL094259216", verified: true });
    expect(checkTaxId("123", "DE")).toBeNull();
    expect(checkTaxId("12-3456789", "US")).toEqual({ value: "123456789", verified: false });
  });
});

describe("allocate", () => {
  it("splits exactly, the remainder going to the largest shares", () => {
    expect(allocate(100, [1, 1, 1])).toEqual([34, 33, 33]);
    expect(allocate(7, [5000, 2500])).toEqual([5, 2]);
    expect(allocate(5, [0, 0])).toEqual([5, 0]);
    expect(allocate(0, [10, 20])).toEqual([0, 0]);
  });
});
