import { describe, expect, it } from "vitest";
import { CountryCodes } from "../../../src/schema/address.ts";
import { TaxIdFormatValues, checkTaxId, parseTaxId } from "../../../src/adapters/tax-engine/tax-id.ts";

// One valid number per country jsvat checks, as a buyer might type it.
const VALID_NUMBERS: Readonly<Record<string, string>> = {
  AT: "U13585627",
  BE: "0776091951",
  BG: "175074752",
  CY: "10259033P",
  CZ: "25123891",
  DE: "136695976",
  DK: "13585628",
  EE: "100931558",
  ES: "A0011012B",
  FI: "09853608",
  FR: "61954506077",
  GR: "094259216",
  HR: "38192148118",
  HU: "21376414",
  IE: "8Z49289F",
  IT: "00743110157",
  LT: "119511515",
  LU: "10000356",
  LV: "40003009497",
  MT: "15121333",
  NL: "004495445B01",
  PL: "5260001246",
  PT: "501964843",
  RO: "18547290",
  SE: "556188840401",
  SI: "15012557",
  SK: "2022749619",
  GB: "980780684",
  CH: "CHE-116.281.710 MWST",
  NO: "974 760 673 MVA",
  RS: "101134702",
  RU: "7707083893",
  BR: "11.222.333/0001-81",
  AD: "F-123456-A",
};

describe("tax IDs: one rule, formats from the reference's enum only", () => {
  it("stores every number jsvat verifies under a format of the enum", () => {
    for (const [country, number] of Object.entries(VALID_NUMBERS)) {
      const parsed = parseTaxId(number, country);
      expect(parsed, country).not.toBeNull();
      expect(TaxIdFormatValues, country).toContain(parsed?.[1]);
      expect(checkTaxId(number, country), country).toEqual({ value: parsed?.[0], verified: true });
    }
  });

  it("names each non-EU number by what it is, without a prefix the identifier lacks", () => {
    expect(parseTaxId("101134702", "RS")).toEqual(["101134702", "rs_pib"]);
    expect(parseTaxId("RS 101 134 702", "RS")).toEqual(["101134702", "rs_pib"]);
    expect(parseTaxId("7707083893", "RU")).toEqual(["7707083893", "ru_inn"]);
    expect(parseTaxId("11.222.333/0001-81", "BR")).toEqual(["11222333000181", "br_cnpj"]);
    expect(parseTaxId("F-123456-A", "AD")).toEqual(["F123456A", "ad_nrt"]);
    expect(parseTaxId("NO 974 760 673 MVA", "NO")).toEqual(["974760673MVA", "no_vat"]);
    expect(parseTaxId("GB980780684", "GB")).toEqual(["GB980780684", "gb_vat"]);
    expect(parseTaxId("CHE-116.281.710 MWST", "CH")).toEqual(["CHE116281710MWST", "ch_vat"]);
    expect(parseTaxId("116.281.710", "CH")).toEqual(["CHE116281710", "ch_uid"]);
  });

  it("reads a stored number back to the same pair, so an address change re-checks it unchanged", () => {
    for (const [country, number] of Object.entries(VALID_NUMBERS)) {
      const [value, format] = parseTaxId(number, country) ?? ["", ""];
      expect(parseTaxId(value, country), country).toEqual([value, format]);
    }
  });

  it("never stores a number it cannot verify: no validator, or no format for what the number is", () => {
    // A Norwegian organisation number without MVA is not a VAT number; the enum has no name for it.
    expect(checkTaxId("974760673", "NO")).toEqual({ value: "974760673", verified: false });
    expect(parseTaxId("974760673", "NO")).toBeNull();
    expect(parseTaxId("12-3456789", "US")).toBeNull();
    for (const country of CountryCodes.filter((code) => !(code in VALID_NUMBERS))) {
      expect(checkTaxId("12-3456789", country), country).toEqual({ value: "123456789", verified: false });
      expect(parseTaxId("12-3456789", country), country).toBeNull();
    }
  });

  it("refuses a number the country's validator rejects, whatever the policy for unverified ones", () => {
    expect(checkTaxId("101134703", "RS")).toBeNull();
    expect(checkTaxId("7707083894", "RU")).toBeNull();
    expect(checkTaxId("DE136695976", "AT")).toBeNull();
    expect(parseTaxId("FR00000000000", "FR")).toBeNull();
  });
});
