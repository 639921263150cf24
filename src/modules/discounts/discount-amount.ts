import { applyBasisPoints } from "../../values/money.ts";

/** What a discount needs to say how much it takes off. */
export interface PricingDiscount {
  type: "fixed" | "percentage";
  basis_points: number | null;
  amounts: Record<string, number> | null;
}

/**
 * What a discount takes off `amount`: a percentage rounded half away from zero; a fixed amount in
 * the currency, never more than the amount. Checkouts and subscription renewals both use it.
 */
export function discountAmount(discount: PricingDiscount | null, amount: number, currency: string): number {
  if (!discount) return 0;
  if (discount.type === "percentage") return applyBasisPoints(amount, discount.basis_points ?? 0);
  return Math.min(discount.amounts?.[currency] ?? 0, amount);
}
