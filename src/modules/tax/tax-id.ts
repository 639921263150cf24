import * as jsvat from "jsvat";

/** jsvat's validators by ISO country code (Greece files VAT numbers under `EL`). */
const VALIDATORS = new Map<string, jsvat.Country>(jsvat.countries.map((c) => [c.codes[0] ?? "", c]));
const VAT_PREFIX: Readonly<Record<string, string>> = { GR: "EL" };

export interface TaxIdCheck {
  /** Normalized number with its country prefix, as stored. */
  value: string;
  /** Whether a validator for the country accepted it; false when there is none. */
  verified: boolean;
}

/**
 * Normalizes a tax ID for `country` and verifies it where a VAT validator exists. Returns null
 * when a validator exists and rejects the number; unknown countries keep the number unverified.
 */
export function checkTaxId(raw: string, country: string): TaxIdCheck | null {
  const compact = raw.toUpperCase().replace(/[\s.\-/]/g, "");
  const validator = VALIDATORS.get(country);
  if (!validator) return { value: compact, verified: false };
  const prefix = VAT_PREFIX[country] ?? country;
  const candidate = compact.startsWith(prefix) || compact.startsWith(country) ? compact : `${prefix}${compact}`;
  const result = jsvat.checkVAT(candidate, [validator]);
  return result.isValid ? { value: result.value ?? candidate, verified: true } : null;
}
