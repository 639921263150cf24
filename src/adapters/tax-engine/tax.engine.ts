import type { CountryCode } from "../../schema/address.ts";
import { applyBasisPoints, includedTax } from "../../values/money.ts";
import { isoSubdivision } from "../../schema/subdivisions.ts";
import { parseTaxId } from "./tax-id.ts";
import { TAX_RULES, isEuMember, rateOn, type TaxRule } from "./tax.rates.ts";

export type TaxBehavior = "inclusive" | "exclusive";

/** `standard`: the registration of its country (or state); `eu_oss`: the One-Stop Shop, covering every EU member state. */
export type TaxRegistrationScheme = "standard" | "eu_oss";

/** Where the seller is registered to collect tax (the organization's registrations, numbers aside). */
export interface TaxRegistrationFacts {
  country: string;
  /** ISO 3166-2 (`CA-QC`) for a state's own registration; null for a country-wide one. */
  state: string | null;
  scheme: TaxRegistrationScheme;
}

export interface TaxQuery {
  /** Taxable amount in minor units, after discounts. */
  amount: number;
  currency: string;
  behavior: TaxBehavior;
  country: CountryCode;
  /** The buyer's state (`CA-ON`, or `ON` as a session may keep it), or null. */
  state: string | null;
  isBusiness: boolean;
  taxId: string | null;
  /** Where the seller collects tax: nothing is charged elsewhere. */
  registrations: readonly TaxRegistrationFacts[];
  /** Where the seller is established (its legal address's country); null when not recorded. */
  sellerCountry: string | null;
  /** The transaction's time: the rates in force then apply. */
  at: Date;
}

export interface TaxResult {
  amount: number;
  /** The rate charged; 0 when reverse-charged; null when no tax is collected (no registration, or no rate, there). */
  basisPoints: number | null;
  reverseCharge: boolean;
}

/** Where tax comes from; the shipped engine uses a static rate table, a hosted service could replace it. */
export interface TaxEngine {
  calculate(query: TaxQuery): TaxResult;
}

/**
 * An EU business buyer with a VAT number that validates for its country accounts for the VAT
 * itself, unless it is established in the seller's own member state: a domestic sale to a
 * business is charged VAT like any other (Article 196 of Directive 2006/112/EC covers supplies by
 * a supplier not established in the member state where the VAT is due).
 */
export const reverseChargeApplies = (query: Pick<TaxQuery, "country" | "isBusiness" | "taxId" | "sellerCountry">): boolean =>
  query.isBusiness &&
  isEuMember(query.country) &&
  query.country !== query.sellerCountry &&
  query.taxId !== null &&
  parseTaxId(query.taxId, query.country)?.[1] === "eu_vat";

/** Whether a registration collects the tax of a rule: the same registration, or the One-Stop Shop for an EU member's VAT. */
function covers(registration: TaxRegistrationFacts, rule: TaxRule): boolean {
  if (registration.scheme === "eu_oss") return rule.registration.state === null && isEuMember(rule.registration.country);
  return registration.country === rule.registration.country && registration.state === rule.registration.state;
}

/** Why this service cannot collect tax under a registration, or null when it can (some rule of the table is collected under it). */
export function registrationProblem(registration: TaxRegistrationFacts): string | null {
  if (registration.scheme === "eu_oss") {
    if (!isEuMember(registration.country)) return "A One-Stop Shop registration is held in an EU member state.";
    return registration.state === null ? null : "A One-Stop Shop registration covers whole member states: it has no state.";
  }
  if (TAX_RULES.some((rule) => covers(registration, rule))) return null;
  return registration.state === null
    ? "No tax of this country is in the rate table."
    : "No tax of this state is collected under a registration of its own: register the country.";
}

const dayOf = (at: Date): string => at.toISOString().slice(0, 10);

/**
 * The combined rate the seller collects from a buyer in `country`/`state` on `at`: per registration
 * that covers the buyer, the state's rule where there is one in force, else the country's; the rules
 * of different registrations add up. Null when no registration covers the buyer.
 */
export function collectedRate(query: Pick<TaxQuery, "country" | "state" | "registrations" | "at">): number | null {
  const day = dayOf(query.at);
  // Sessions keep a state as typed (`QC`); the table names them in ISO 3166-2 form.
  const state = query.state ? isoSubdivision(query.country, query.state) : null;
  const byRegistration = new Map<string, number>();
  // Country rules first, so that a state's rule under the same registration replaces its country's.
  const rules = TAX_RULES.filter((rule) => rule.country === query.country && (rule.state === null || rule.state === state)).sort(
    (a, b) => Number(a.state !== null) - Number(b.state !== null),
  );
  for (const rule of rules) {
    const rate = rateOn(rule, day);
    if (rate === null || !query.registrations.some((registration) => covers(registration, rule))) continue;
    byRegistration.set(`${rule.registration.country}/${rule.registration.state ?? ""}`, rate);
  }
  if (byRegistration.size === 0) return null;
  return [...byRegistration.values()].reduce((sum, rate) => sum + rate, 0);
}

/**
 * The table's rates where the seller is registered, in force at the transaction's time; EU
 * businesses with a VAT number that validates for their country are reverse-charged (no tax),
 * registered there or not.
 */
export const rateTableTaxEngine: TaxEngine = {
  calculate(query) {
    if (reverseChargeApplies(query)) return { amount: 0, basisPoints: 0, reverseCharge: true };
    const basisPoints = collectedRate(query);
    if (basisPoints === null) return { amount: 0, basisPoints: null, reverseCharge: false };
    const amount = query.behavior === "inclusive" ? includedTax(query.amount, basisPoints) : applyBasisPoints(query.amount, basisPoints);
    return { amount, basisPoints, reverseCharge: false };
  },
};
