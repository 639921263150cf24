import type { StoredAddress } from "../../kit/address.ts";
import type { RecurringInterval } from "../../kit/schema.ts";
import type { CheckoutBillingAddressFields } from "./checkouts.schemas.ts";

/** The parts of a price the checkout rules look at. */
export interface PriceFacts {
  amount_type: "fixed" | "custom" | "free" | "seat_based" | "metered_unit";
  price_amount: number | null;
  seat_tiers: { price_per_seat: number }[] | null;
}

export interface DiscountFacts {
  type: "fixed" | "percentage";
  duration: "once" | "forever" | "repeating";
  basis_points: number | null;
}

/** Free: a fixed price of zero, or seats with no tier or only zero tiers. Custom and metered never are. */
export function isFreePrice(price: PriceFacts): boolean {
  switch (price.amount_type) {
    case "free":
      return true;
    case "fixed":
      return (price.price_amount ?? 0) === 0;
    case "seat_based":
      return (price.seat_tiers ?? []).every((tier) => tier.price_per_seat === 0);
    default:
      return false;
  }
}

export const isFreeProductPrice = (prices: readonly PriceFacts[]): boolean => prices.every(isFreePrice);

/** Custom prices count as discountable, as the reference service does despite its field description. */
export const isDiscountApplicable = (prices: readonly PriceFacts[]): boolean => prices.some((price) => !isFreePrice(price));

export function isPaymentSetupRequired(input: {
  hasProduct: boolean;
  isRecurring: boolean;
  prices: readonly PriceFacts[];
  amount: number;
  discount: DiscountFacts | null;
}): boolean {
  if (!input.hasProduct || input.prices.length === 0 || isFreeProductPrice(input.prices)) return false;
  const hasMetered = input.prices.some((price) => price.amount_type === "metered_unit");
  if (input.amount === 0 && !hasMetered) return false;
  const d = input.discount;
  if (d && d.type === "percentage" && d.basis_points === 10_000 && d.duration === "forever") return false;
  return input.isRecurring;
}

export interface TrialFacts {
  allowTrial: boolean | null;
  checkoutInterval: RecurringInterval | null;
  checkoutCount: number | null;
  product: { isRecurring: boolean; trialInterval: RecurringInterval | null; trialCount: number | null } | null;
}

/** The trial in effect: none unless allowed and the product recurs; the checkout's own, else the product's. */
export function activeTrial(facts: TrialFacts): { interval: RecurringInterval | null; count: number | null } {
  if (!facts.allowTrial || !facts.product || !facts.product.isRecurring) return { interval: null, count: null };
  return {
    interval: facts.checkoutInterval ?? facts.product.trialInterval,
    count: facts.checkoutCount ?? facts.product.trialCount,
  };
}

/**
 * Which address fields the form shows. A full address is needed when asked for, for business
 * buyers, for UPI payments and for every US address; states only exist for the US and Canada.
 */
export function billingAddressFields(input: {
  address: StoredAddress | null;
  requireBillingAddress: boolean;
  isBusinessCustomer: boolean;
  paymentMethodType: string | null;
}): CheckoutBillingAddressFields {
  const country = input.address?.country ?? null;
  const full = input.requireBillingAddress || input.isBusinessCustomer || input.paymentMethodType === "upi" || country === "US";
  const stateRequired = country === "US" || country === "CA";
  return {
    country: "required",
    state: stateRequired ? "required" : full ? "optional" : "disabled",
    city: full ? "required" : "disabled",
    postal_code: full ? "required" : "disabled",
    line1: full ? "required" : "disabled",
    line2: full ? "optional" : "disabled",
  };
}
