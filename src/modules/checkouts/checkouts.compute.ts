import type { StoredAddress } from "../../kit/address.ts";
import { addInterval } from "../../kit/calendar.ts";
import type { RecurringInterval } from "../../kit/schema.ts";
import type { DiscountJson } from "../discounts/discounts.mapper.ts";
import type { ProductPriceJson, ProductWithRelationsJson } from "../products/products.mapper.ts";
import type { TaxBehavior, TaxEngine } from "../tax/tax.engine.ts";
import { checkoutAmount, discountAmount } from "./checkouts.pricing.ts";
import * as rules from "./checkouts.rules.ts";

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
  now: Date;
}

export interface PricedCheckout {
  amount: number;
  discount_amount: number;
  net_amount: number;
  tax_amount: number | null;
  tax_behavior: TaxBehavior | null;
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
 * Every stored amount of a session. Tax is 0 when nothing is charged or the product is not
 * taxable, null until a billing address says where the buyer is.
 */
export function priceCheckout(facts: PricingFacts, taxEngine: TaxEngine): PricedCheckout {
  const prices = pricesIn(facts.product, facts.currency);
  const amount = checkoutAmount(prices, { customAmount: facts.customAmount, seats: facts.seats });
  const discounted = facts.discount && rules.isDiscountApplicable(prices) ? discountAmount(facts.discount, amount, facts.currency) : 0;
  const isRecurring = facts.product?.recurring_interval != null;
  const trial = rules.activeTrial({
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
  const setupRequired = rules.isPaymentSetupRequired({
    hasProduct: facts.product !== null,
    isRecurring,
    prices,
    amount,
    discount: facts.discount,
  });
  const behavior = taxBehavior(prices, facts.defaultTaxBehavior);
  let tax: number | null;
  if (!(paymentRequired || setupRequired) || !facts.product?.is_tax_applicable) tax = 0;
  else if (!facts.address) tax = null;
  else {
    tax = taxEngine.calculate({
      amount: taxable,
      currency: facts.currency,
      behavior,
      country: facts.address.country,
      isBusiness: facts.isBusiness,
      taxId: facts.taxId,
    }).amount;
  }
  return {
    amount,
    discount_amount: discounted,
    net_amount: behavior === "inclusive" && tax !== null ? taxable - tax : taxable,
    tax_amount: tax,
    tax_behavior: tax === null ? null : behavior,
    trial_end: trialEnd,
  };
}
