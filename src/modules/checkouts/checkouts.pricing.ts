import type { StoredAddress } from "../../schema/address.ts";
import { addInterval } from "../../values/calendar.ts";
import type { RecurringInterval } from "../../schema/primitives.ts";
import { discountAmount } from "../discounts/discounts.steps.ts";
import type { DiscountJson } from "../discounts/discounts.mapper.ts";
import { seatAmount } from "../products/products.steps.ts";
import type { ProductPriceJson, ProductWithRelationsJson } from "../products/products.mapper.ts";
import type { TaxBehavior, TaxEngine, TaxRegistrationFacts, TaxResult } from "../../adapters/tax-engine/tax.engine.ts";
import type { CheckoutBillingAddressFields } from "./checkouts.schemas.ts";

// The checkout's arithmetic and rules: pure functions of the session's facts, no database.

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

export interface PricedPrice extends PriceFacts {
  minimum_amount: number | null;
  preset_amount: number | null;
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

/** The session facts every stored amount derives from. */
export interface PricingFacts {
  product: ProductWithRelationsJson | null;
  currency: string;
  customAmount: number | null;
  seats: number | null;
  discount: Pick<DiscountJson, "type" | "duration" | "basis_points" | "amounts"> | null;
  allowTrial: boolean | null;
  trialInterval: RecurringInterval | null;
  trialIntervalCount: number | null;
  address: StoredAddress | null;
  isBusiness: boolean;
  taxId: string | null;
  /** The organization's default: `location`, `inclusive` or `exclusive`. */
  defaultTaxBehavior: string;
  taxRegistrations: readonly TaxRegistrationFacts[];
  /** The seller's country of establishment: a business buyer there is charged VAT, not reverse-charged. */
  sellerCountry: string | null;
  now: Date;
}

export interface PricedCheckout {
  amount: number;
  discount_amount: number;
  net_amount: number;
  tax_amount: number | null;
  tax_behavior: TaxBehavior | null;
  tax_rate_basis_points: number | null;
  tax_reverse_charge: boolean;
  trial_end: Date | null;
}

/** The selected product's prices in the session currency: the only ones that can be charged. */
export const pricesIn = (product: ProductWithRelationsJson | null, currency: string): ProductPriceJson[] =>
  (product?.prices ?? []).filter((price) => price.price_currency === currency);

/** A price's own behavior wins, then the organization's; `location` (and no preference) is exclusive. */
function taxBehavior(prices: readonly ProductPriceJson[], organizationDefault: string): TaxBehavior {
  for (const candidate of [...prices.map((p) => p.tax_behavior), organizationDefault]) {
    if (candidate === "inclusive" || candidate === "exclusive") return candidate;
  }
  return "exclusive";
}

/**
 * Every stored amount of a session. Tax is 0 when nothing is charged, the product is not taxable
 * or the seller is not registered where the buyer is; null until a billing address says where the
 * buyer is. The rate and reverse charge the engine applied are kept with it.
 */
export function priceCheckout(facts: PricingFacts, taxEngine: TaxEngine): PricedCheckout {
  const prices = pricesIn(facts.product, facts.currency);
  const amount = checkoutAmount(prices, { customAmount: facts.customAmount, seats: facts.seats });
  const discounted = facts.discount && isDiscountApplicable(prices) ? discountAmount(facts.discount, amount, facts.currency) : 0;
  const isRecurring = facts.product?.recurring_interval != null;
  const trial = activeTrial({
    allowTrial: facts.allowTrial,
    checkoutInterval: facts.trialInterval,
    checkoutCount: facts.trialIntervalCount,
    product: facts.product
      ? { isRecurring, trialInterval: facts.product.trial_interval, trialCount: facts.product.trial_interval_count }
      : null,
  });
  const trialEnd = trial.interval && trial.count ? addInterval(facts.now, trial.interval, trial.count) : null;
  const taxable = amount - discounted;
  const paymentRequired = taxable > 0 && trialEnd === null;
  const setupRequired = isPaymentSetupRequired({
    hasProduct: facts.product !== null,
    isRecurring,
    prices,
    amount,
    discount: facts.discount,
  });
  const behavior = taxBehavior(prices, facts.defaultTaxBehavior);
  const taxed = (paymentRequired || setupRequired) && facts.product?.is_tax_applicable === true;
  const computed: TaxResult | null =
    taxed && facts.address
      ? taxEngine.calculate({
          amount: taxable,
          currency: facts.currency,
          behavior,
          country: facts.address.country,
          state: facts.address.state,
          isBusiness: facts.isBusiness,
          taxId: facts.taxId,
          registrations: facts.taxRegistrations,
          sellerCountry: facts.sellerCountry,
          at: facts.now,
        })
      : null;
  const tax = !taxed ? 0 : computed ? computed.amount : null;
  return {
    amount,
    discount_amount: discounted,
    net_amount: behavior === "inclusive" && tax !== null ? taxable - tax : taxable,
    tax_amount: tax,
    tax_behavior: tax === null ? null : behavior,
    tax_rate_basis_points: computed?.basisPoints ?? null,
    tax_reverse_charge: computed?.reverseCharge ?? false,
    trial_end: trialEnd,
  };
}
