import { applyBasisPoints } from "../../kit/money.ts";
import type { PriceFacts } from "./checkouts.rules.ts";

export interface PricedPrice extends PriceFacts {
  minimum_amount: number | null;
  preset_amount: number | null;
}

export interface PricingDiscount {
  type: "fixed" | "percentage";
  basis_points: number | null;
  amounts: Record<string, number> | null;
}

/** Seat price: the tier containing `seats` prices every seat (volume tiers). */
function seatAmount(tiers: { min_seats: number; max_seats?: number | null; price_per_seat: number }[], seats: number): number {
  const tier = tiers.find((t) => seats >= t.min_seats && (t.max_seats == null || seats <= t.max_seats)) ?? tiers[tiers.length - 1];
  return tier ? tier.price_per_seat * seats : 0;
}

/**
 * Amount before discounts and taxes: the sum of the product's static prices. A custom price is the
 * buyer's amount (0 honoured), else its preset, else its minimum; metered prices bill later (0).
 */
export function checkoutAmount(
  prices: readonly (PricedPrice & { seat_tiers: { min_seats: number; max_seats?: number | null; price_per_seat: number }[] | null })[],
  choice: { customAmount?: number | null; seats?: number | null } = {},
): number {
  let total = 0;
  for (const price of prices) {
    switch (price.amount_type) {
      case "fixed":
        total += price.price_amount ?? 0;
        break;
      case "custom":
        total += choice.customAmount ?? price.preset_amount ?? price.minimum_amount ?? 0;
        break;
      case "seat_based":
        total += seatAmount(price.seat_tiers ?? [], choice.seats ?? 1);
        break;
      default:
        break;
    }
  }
  return total;
}

/** Percentage: rounded half away from zero; fixed: its amount in the currency, never above the amount. */
export function discountAmount(discount: PricingDiscount | null, amount: number, currency: string): number {
  if (!discount) return 0;
  if (discount.type === "percentage") return applyBasisPoints(amount, discount.basis_points ?? 0);
  return Math.min(discount.amounts?.[currency] ?? 0, amount);
}
