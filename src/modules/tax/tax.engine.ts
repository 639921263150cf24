import type { CountryCode } from "../../kit/address.ts";
import { applyBasisPoints, includedTax } from "../../kit/money.ts";
import { parseTaxId } from "./tax-id.ts";
import { STANDARD_RATE_BASIS_POINTS, isEuMember } from "./tax.rates.ts";

export type TaxBehavior = "inclusive" | "exclusive";

export interface TaxQuery {
  /** Taxable amount in minor units, after discounts. */
  amount: number;
  currency: string;
  behavior: TaxBehavior;
  country: CountryCode;
  isBusiness: boolean;
  taxId: string | null;
}

export interface TaxResult {
  amount: number;
  basisPoints: number;
  reverseCharge: boolean;
}

/** Where tax comes from; the shipped engine uses a static rate table, a hosted service could replace it. */
export interface TaxEngine {
  calculate(query: TaxQuery): TaxResult;
}

/** An EU business buyer with a VAT number that validates for its country accounts for the VAT itself. */
export const reverseChargeApplies = (buyer: Pick<TaxQuery, "country" | "isBusiness" | "taxId">): boolean =>
  buyer.isBusiness && isEuMember(buyer.country) && buyer.taxId !== null && parseTaxId(buyer.taxId, buyer.country)?.[1] === "eu_vat";

/**
 * The rate that produced `tax` on `net` in the buyer's country: the table's standard rate when it
 * gives that tax (prices with or without tax), else (no country, another rate) the effective rate
 * in whole basis points.
 */
export function rateOfTax(country: CountryCode | null, net: number, tax: number): number {
  const standard = country === null ? undefined : STANDARD_RATE_BASIS_POINTS[country];
  if (standard !== undefined && (applyBasisPoints(net, standard) === tax || includedTax(net + tax, standard) === tax)) return standard;
  return net > 0 ? Math.round((tax * 10_000) / net) : 0;
}

/**
 * The standard rate of the buyer's country; EU businesses with a tax ID that validates for their
 * country are reverse-charged (no tax).
 */
export const rateTableTaxEngine: TaxEngine = {
  calculate(query) {
    const reverseCharge = reverseChargeApplies(query);
    const basisPoints = reverseCharge ? 0 : (STANDARD_RATE_BASIS_POINTS[query.country] ?? 0);
    const amount = query.behavior === "inclusive" ? includedTax(query.amount, basisPoints) : applyBasisPoints(query.amount, basisPoints);
    return { amount, basisPoints, reverseCharge };
  },
};
