import { describe, expect, it } from "vitest";
import { allocate, includedTax } from "../../../src/values/money.ts";
import { checkTaxId } from "../../../src/adapters/tax-engine/tax-id.ts";
import {
  rateTableTaxEngine,
  registrationProblem,
  type TaxQuery,
  type TaxRegistrationFacts,
} from "../../../src/adapters/tax-engine/tax.engine.ts";
import { EU_MEMBERS, TAX_RULES } from "../../../src/adapters/tax-engine/tax.rates.ts";

const registered = (...entries: string[]): TaxRegistrationFacts[] =>
  entries.map((entry) => {
    const [jurisdiction = "", scheme] = entry.split(":");
    const country = jurisdiction.slice(0, 2);
    return { country, state: jurisdiction.length > 2 ? jurisdiction : null, scheme: scheme === "oss" ? "eu_oss" : "standard" };
  });

const query: Omit<TaxQuery, "country"> = {
  amount: 10_000,
  currency: "usd",
  behavior: "exclusive",
  state: null,
  isBusiness: false,
  taxId: null,
  registrations: registered(...EU_MEMBERS, "GB", "NO", "CH", "AU", "CA"),
  sellerCountry: null,
  at: new Date("2026-11-24T12:00:00Z"),
};
const tax = (overrides: Partial<TaxQuery> & Pick<TaxQuery, "country">) => rateTableTaxEngine.calculate({ ...query, ...overrides });
const rateAt = (country: TaxQuery["country"], at: string, registrations = query.registrations, state: string | null = null) =>
  tax({ country, state, at: new Date(at), registrations }).basisPoints;

describe("rate table tax engine: where the seller is registered", () => {
  it("charges the rate of the buyer's country where registered, nothing (rate null) elsewhere", () => {
    expect(tax({ country: "FR" })).toEqual({ amount: 2000, basisPoints: 2000, reverseCharge: false });
    expect(tax({ country: "CH" }).amount).toBe(810);
    expect(tax({ country: "AU" }).amount).toBe(1000);
    expect(tax({ country: "NO" }).amount).toBe(2500);
    // Registered nowhere: a French buyer pays no VAT.
    expect(tax({ country: "FR", registrations: [] })).toEqual({ amount: 0, basisPoints: null, reverseCharge: false });
    // Japan taxes digital services from abroad, but only once the seller registers there.
    expect(tax({ country: "JP" })).toEqual({ amount: 0, basisPoints: null, reverseCharge: false });
    expect(tax({ country: "JP", registrations: registered("JP") })).toEqual({ amount: 1000, basisPoints: 1000, reverseCharge: false });
    // A country without a tax in the table: nothing, registered or not.
    expect(tax({ country: "US" }).basisPoints).toBeNull();
    // A registration in one country collects nothing from its neighbour.
    expect(tax({ country: "DE", registrations: registered("FR") }).basisPoints).toBeNull();
  });

  it("collects every EU member state's VAT through one One-Stop Shop registration, and nothing outside the EU", () => {
    const oss = registered("IE:oss");
    expect(tax({ country: "FR", registrations: oss }).amount).toBe(2000);
    expect(tax({ country: "DE", registrations: oss }).amount).toBe(1900);
    expect(tax({ country: "HU", registrations: oss }).amount).toBe(2700);
    expect(tax({ country: "IE", registrations: oss }).amount).toBe(2300);
    for (const country of ["GB", "NO", "CH"] as const) expect(tax({ country, registrations: oss }).basisPoints).toBeNull();
  });

  it("picks the rate in force on the transaction's day (UTC), at each edge of a change", () => {
    // Germany's temporary 16 % for the second half of 2020.
    expect(rateAt("DE", "2020-06-30T23:59:59.999Z")).toBe(1900);
    expect(rateAt("DE", "2020-07-01T00:00:00Z")).toBe(1600);
    expect(rateAt("DE", "2020-12-31T23:59:59Z")).toBe(1600);
    expect(rateAt("DE", "2021-01-01T00:00:00Z")).toBe(1900);
    expect(rateAt("EE", "2025-06-30T23:59:59Z")).toBe(2200);
    expect(rateAt("EE", "2025-07-01T00:00:00Z")).toBe(2400);
    expect(rateAt("FI", "2024-08-31T12:00:00Z")).toBe(2400);
    expect(rateAt("FI", "2024-09-01T00:00:00Z")).toBe(2550);
    expect(rateAt("SK", "2025-01-01T00:00:00Z")).toBe(2300);
    expect(rateAt("RO", "2025-08-01T00:00:00Z")).toBe(2100);
    expect(rateAt("CH", "2023-12-31T23:59:59Z")).toBe(770);
    expect(rateAt("CH", "2024-01-01T00:00:00Z")).toBe(810);
    const singapore = registered("SG");
    expect(rateAt("SG", "2022-12-31T23:59:59Z", singapore)).toBe(700);
    expect(rateAt("SG", "2023-01-01T00:00:00Z", singapore)).toBe(800);
    expect(rateAt("SG", "2024-01-01T00:00:00Z", singapore)).toBe(900);
    const japan = registered("JP");
    expect(rateAt("JP", "2019-09-30T23:59:59Z", japan)).toBe(800);
    expect(rateAt("JP", "2019-10-01T00:00:00Z", japan)).toBe(1000);
    // Before the first date, the rule does not apply yet: nothing is collected.
    expect(rateAt("JP", "2015-09-30T23:59:59Z", japan)).toBeNull();
  });

  it("charges Canada's GST, the HST in its place in participating provinces, and a province's own tax only under its registration", () => {
    const gst = registered("CA");
    expect(rateAt("CA", "2026-01-01T00:00:00Z", gst, "CA-AB")).toBe(500);
    expect(rateAt("CA", "2026-01-01T00:00:00Z", gst, "CA-ON")).toBe(1300);
    // A session keeps the state as typed.
    expect(rateAt("CA", "2026-01-01T00:00:00Z", gst, "on")).toBe(1300);
    expect(rateAt("CA", "2026-01-01T00:00:00Z", gst, "CA-NB")).toBe(1500);
    expect(rateAt("CA", "2025-03-31T23:59:59Z", gst, "CA-NS")).toBe(1500);
    expect(rateAt("CA", "2025-04-01T00:00:00Z", gst, "CA-NS")).toBe(1400);
    // The province not known yet: the federal GST.
    expect(rateAt("CA", "2026-01-01T00:00:00Z", gst, null)).toBe(500);
    // Québec: GST alone without a QST registration, both (14.975 %) with it; the QST alone without the GST/HST one.
    expect(rateAt("CA", "2026-01-01T00:00:00Z", gst, "CA-QC")).toBe(500);
    expect(tax({ country: "CA", state: "CA-QC", registrations: registered("CA", "CA-QC") })).toEqual({
      amount: 1498, // 1 497.5, half away from zero
      basisPoints: 1497.5,
      reverseCharge: false,
    });
    expect(tax({ country: "CA", state: "CA-QC", registrations: registered("CA-QC") }).amount).toBe(998);
    expect(rateAt("CA", "2026-01-01T00:00:00Z", registered("CA-QC"), "CA-ON")).toBeNull();
    expect(rateAt("CA", "2026-01-01T00:00:00Z", registered("CA", "CA-BC"), "CA-BC")).toBe(1200);
    // Tax-inclusive prices: 229.95 at 14.975 % contains exactly 29.95; 114.98 contains 14.9763… → 14.98.
    const quebec = { country: "CA" as const, state: "CA-QC", behavior: "inclusive" as const, registrations: registered("CA", "CA-QC") };
    expect(tax({ ...quebec, amount: 22_995 }).amount).toBe(2995);
    expect(tax({ ...quebec, amount: 11_498 }).amount).toBe(1498);
  });

  it("collects Liechtenstein's VAT under a Swiss registration", () => {
    expect(tax({ country: "LI", registrations: registered("CH") }).amount).toBe(810);
    expect(tax({ country: "LI", registrations: registered("AT") }).basisPoints).toBeNull();
  });

  it("reverse-charges only EU businesses whose VAT number validates for their country, registered there or not", () => {
    const business = { country: "FR" as const, isBusiness: true };
    const reversed = { amount: 0, basisPoints: 0, reverseCharge: true };
    expect(tax({ ...business, taxId: "FR61954506077" })).toEqual(reversed);
    expect(tax({ ...business, taxId: "FR61954506077", registrations: [] })).toEqual(reversed);
    expect(tax({ ...business, taxId: "FR61954506077", registrations: registered("IE:oss") })).toEqual(reversed);
    expect(tax({ ...business, taxId: "FR00000000000" }).amount).toBe(2000);
    expect(tax({ ...business, taxId: null }).amount).toBe(2000);
    expect(tax({ ...business, isBusiness: false, taxId: "FR61954506077" }).amount).toBe(2000);
    // The UK left the EU: no reverse charge there.
    expect(tax({ ...business, country: "GB", taxId: "GB980780684" }).amount).toBe(2000);
  });

  it("charges VAT to a business in the seller's own member state (domestic B2B), reverse-charges the other member states'", () => {
    const french = { country: "FR" as const, isBusiness: true, taxId: "FR61954506077" };
    const charged = { amount: 2000, basisPoints: 2000, reverseCharge: false };
    expect(tax({ ...french, sellerCountry: "FR" })).toEqual(charged);
    expect(tax({ ...french, sellerCountry: "FR", registrations: registered("FR:oss") })).toEqual(charged);
    // Not recorded as registered at home: nothing is collected, and it is not reverse-charged either.
    expect(tax({ ...french, sellerCountry: "FR", registrations: [] })).toEqual({ amount: 0, basisPoints: null, reverseCharge: false });
    const reversed = { amount: 0, basisPoints: 0, reverseCharge: true };
    expect(tax({ ...french, sellerCountry: "DE" })).toEqual(reversed);
    expect(tax({ ...french, sellerCountry: "US" })).toEqual(reversed);
    expect(tax({ country: "DE", isBusiness: true, taxId: "DE136695976", sellerCountry: "FR" })).toEqual(reversed);
    expect(tax({ country: "DE", isBusiness: true, taxId: "DE136695976", sellerCountry: "DE" }).amount).toBe(1900);
  });

  it("rounds half away from zero, for exclusive and inclusive amounts", () => {
    // 2.5 cents → 3; 19.99 × 20% = 3.998 → 4.00.
    expect(tax({ amount: 25, country: "NO" }).amount).toBe(6);
    expect(tax({ amount: 1999, country: "FR" }).amount).toBe(400);
    expect(tax({ amount: 1200, behavior: "inclusive", country: "GB" }).amount).toBe(200);
    expect(includedTax(1, 2000)).toBe(0);
    // 3 × 2000 / 12000 = 0.5 → 1.
    expect(includedTax(3, 2000)).toBe(1);
  });
});

describe("registrations this service can collect under", () => {
  it.each([
    { country: "FR", state: null, scheme: "standard" },
    { country: "IE", state: null, scheme: "eu_oss" },
    { country: "CA", state: "CA-QC", scheme: "standard" },
    { country: "CH", state: null, scheme: "standard" },
    { country: "JP", state: null, scheme: "standard" },
  ] as const)("accepts %o", (registration) => {
    expect(registrationProblem(registration)).toBeNull();
  });

  it.each([
    [{ country: "US", state: null, scheme: "standard" }, "No tax of this country is in the rate table."],
    [
      { country: "CA", state: "CA-ON", scheme: "standard" },
      "No tax of this state is collected under a registration of its own: register the country.",
    ],
    [{ country: "GB", state: null, scheme: "eu_oss" }, "A One-Stop Shop registration is held in an EU member state."],
    [{ country: "FR", state: "FR-75", scheme: "eu_oss" }, "A One-Stop Shop registration covers whole member states: it has no state."],
  ] as const)("refuses %o", (registration, problem) => {
    expect(registrationProblem(registration)).toBe(problem);
  });
});

describe("the rate table", () => {
  it("covers the jurisdictions that tax digital services from abroad, each rule with its source and dated rates, oldest first", () => {
    const countries = new Set(TAX_RULES.map((rule) => rule.country));
    for (const country of [...EU_MEMBERS, "GB", "NO", "CH", "AU", "NZ", "JP", "KR", "SG", "IN", "CA"]) expect(countries).toContain(country);
    expect(EU_MEMBERS.size).toBe(27);
    const provinces = TAX_RULES.filter((rule) => rule.country === "CA" && rule.state !== null).map((rule) => rule.state);
    expect(provinces.sort()).toEqual(["CA-BC", "CA-MB", "CA-NB", "CA-NL", "CA-NS", "CA-ON", "CA-PE", "CA-QC", "CA-SK"]);
    for (const rule of TAX_RULES) {
      expect(rule.source.url, rule.country).toMatch(/^https:\/\//);
      expect(rule.source.name.length, rule.country).toBeGreaterThan(5);
      expect(rule.rates.length, rule.country).toBeGreaterThan(0);
      for (const [index, period] of rule.rates.entries()) {
        expect(period.from, rule.country).toMatch(/^\d{4}-\d{2}-\d{2}$/);
        expect(new Date(`${period.from}T00:00:00Z`).toISOString().slice(0, 10)).toBe(period.from);
        expect(period.basisPoints, rule.country).toBeGreaterThan(0);
        expect(Number.isInteger(period.basisPoints * 2), rule.country).toBe(true);
        if (index > 0) expect(period.from > rule.rates[index - 1]!.from, rule.country).toBe(true);
      }
    }
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
