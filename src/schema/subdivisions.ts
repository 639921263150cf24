import type { StoredAddress } from "./address.ts";
import { valueError } from "../http/errors.ts";

// ISO 3166-2 subdivisions of the two countries whose state the reference requires and checks.
// A code list, kept dense so that it reads as a table.
// prettier-ignore
const US = new Set([
  "AL", "AK", "AZ", "AR", "CA", "CO", "CT", "DE", "FL", "GA", "HI", "ID", "IL", "IN", "IA", "KS", "KY", "LA", "ME", "MD",
  "MA", "MI", "MN", "MS", "MO", "MT", "NE", "NV", "NH", "NJ", "NM", "NY", "NC", "ND", "OH", "OK", "OR", "PA", "RI", "SC",
  "SD", "TN", "TX", "UT", "VT", "VA", "WA", "WV", "WI", "WY", "DC", "AS", "GU", "MP", "PR", "UM", "VI",
]);
const CA = new Set(["AB", "BC", "MB", "NB", "NL", "NS", "NT", "NU", "ON", "PE", "QC", "SK", "YT"]);

const RULES: Partial<Record<string, { codes: ReadonlySet<string>; message: string }>> = {
  US: { codes: US, message: "Invalid US state" },
  CA: { codes: CA, message: "Invalid CA subdivision" },
};

/**
 * US and CA addresses carry a valid state, stored as `US-NY` / `CA-QC`; a bare `NY` is prefixed.
 * Other countries keep their state as given.
 */
export function normalizeState(address: StoredAddress, loc: (string | number)[]): StoredAddress {
  const rule = RULES[address.country];
  if (!rule) return address;
  const raw = address.state?.trim().toUpperCase() ?? "";
  const code = raw.startsWith(`${address.country}-`) ? raw.slice(address.country.length + 1) : raw;
  if (!rule.codes.has(code)) throw valueError([...loc, "state"], rule.message, address.state);
  return { ...address, state: `${address.country}-${code}` };
}

/** A state in the ISO 3166-2 form addresses keep (`QC`, `ca-qc` → `CA-QC`), whatever the country. */
export const isoSubdivision = (country: string, state: string): string => {
  const upper = state.trim().toUpperCase();
  return upper.startsWith(`${country}-`) ? upper : `${country}-${upper}`;
};
