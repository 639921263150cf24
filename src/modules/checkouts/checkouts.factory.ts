import type { Insertable } from "kysely";
import type { Deps } from "../../context.ts";
import type { Executor } from "../../db/database.ts";
import { TokenPrefix, generateToken } from "../../kit/tokens.ts";
import type { DiscountRow } from "../discounts/discounts.table.ts";
import type { ProductPriceRow, ProductRow } from "../products/products.table.ts";
import { checkoutAmount, discountAmount } from "./checkouts.pricing.ts";
import { insertCheckout } from "./checkouts.repository.ts";
import type { CheckoutRow, CheckoutsTable } from "./checkouts.table.ts";

export interface OpenCheckoutInput {
  organizationId: string;
  /** Products offered, in display order; the first is selected unless `selectedProductId` says otherwise. */
  products: { product: ProductRow; prices: ProductPriceRow[] }[];
  selectedProductId?: string;
  discount?: DiscountRow | null;
  values?: Partial<Insertable<CheckoutsTable>>;
}

/**
 * Opens a checkout session from loaded catalog rows: secret, expiry, currency and the stored
 * amounts come from one place, whoever opens the session.
 */
export async function openCheckout(db: Executor, deps: Pick<Deps, "config" | "now">, input: OpenCheckoutInput): Promise<CheckoutRow> {
  const selected = input.products.find((p) => p.product.id === input.selectedProductId) ?? input.products[0] ?? null;
  const prices = selected?.prices ?? [];
  const currency = prices[0]?.price_currency ?? "usd";
  const amount = checkoutAmount(prices, { seats: input.values?.seats ?? null });
  const discount = input.discount ?? null;
  const discounted = discountAmount(discount, amount, currency);
  const now = deps.now();
  return insertCheckout(
    db,
    {
      organization_id: input.organizationId,
      created_at: now,
      client_secret: generateToken(TokenPrefix.checkoutClientSecret),
      expires_at: new Date(now.getTime() + deps.config.checkoutTtlSeconds * 1000),
      currency,
      amount,
      discount_amount: discounted,
      net_amount: amount - discounted,
      tax_amount: null,
      tax_behavior: null,
      seats: null,
      min_seats: null,
      max_seats: null,
      allow_trial: null,
      trial_interval: null,
      trial_interval_count: null,
      trial_end: null,
      product_id: selected?.product.id ?? null,
      product_price_id: prices[0]?.id ?? null,
      discount_id: discount?.id ?? null,
      customer_id: null,
      external_customer_id: null,
      customer_name: null,
      customer_email: null,
      customer_ip_address: null,
      customer_billing_name: null,
      customer_billing_address: null,
      customer_tax_id: null,
      locale: null,
      payment_method_type: null,
      success_url: null,
      return_url: null,
      embed_origin: null,
      subscription_id: null,
      ...input.values,
    },
    input.products.map((p) => p.product.id),
  );
}
