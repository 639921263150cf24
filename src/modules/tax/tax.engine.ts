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

/**
 * The standard rate of the buyer's country; EU businesses with a tax ID that validates for their
 * country are reverse-charged (no tax).
 */
export const rateTableTaxEngine: TaxEngine = {
  calculate(query) {
    const reverseCharge =
      query.isBusiness && isEuMember(query.country) && query.taxId !== null && parseTaxId(query.taxId, query.country)?.[1] === "eu_vat";
    const basisPoints = reverseCharge ? 0 : (STANDARD_RATE_BASIS_POINTS[query.country] ?? 0);
    const amount = query.behavior === "inclusive" ? includedTax(query.amount, basisPoints) : applyBasisPoints(query.amount, basisPoints);
    return { amount, basisPoints, reverseCharge };
  },
};
