import { toIso, toIsoOrNull } from "../../schema/primitives.ts";
import { toAttachedCustomField } from "../custom-fields/custom-fields.mapper.ts";
import { toCheckoutDiscount } from "../discounts/discounts.mapper.ts";
import { toCheckoutProduct, toProductPrice } from "../products/products.mapper.ts";
import type { ProductPrice } from "../products/products.schemas.ts";
import { toCheckoutOrganization } from "../organizations/organizations.mapper.ts";
import type { OrganizationRow } from "../organizations/organizations.table.ts";
import {
  activeTrial,
  billingAddressFields,
  isDiscountApplicable,
  isFreeProductPrice,
  isPaymentSetupRequired,
  pricesIn,
} from "./checkouts.pricing.ts";
import type { CheckoutWithRelations } from "./checkouts.repository.ts";
import { MERCHANT_ONLY_FIELDS, type Checkout, type CheckoutPublic } from "./checkouts.schemas.ts";

export interface CheckoutUrls {
  /** Base of the customer-facing checkout pages. */
  checkoutBaseUrl: string;
}

/** The full `Checkout` resource: stored fields plus every field the rules compute. */
export function toCheckout(row: CheckoutWithRelations, urls: CheckoutUrls): Checkout {
  const products = row.products.map(toCheckoutProduct);
  const selected = row.products.find((p) => p.id === row.product_id) ?? null;
  const selectedPrices = pricesIn(selected, row.currency);
  const isRecurring = selected?.recurring_interval != null;
  const trial = activeTrial({
    allowTrial: row.allow_trial,
    checkoutInterval: row.trial_interval,
    checkoutCount: row.trial_interval_count,
    product: selected ? { isRecurring, trialInterval: selected.trial_interval, trialCount: selected.trial_interval_count } : null,
  });
  const discountFacts = row.discount
    ? { type: row.discount.type, duration: row.discount.duration, basis_points: row.discount.basis_points }
    : null;
  const totalAmount = row.net_amount + (row.tax_amount ?? 0);
  const isPaymentRequired = totalAmount > 0 && row.trial_end === null;
  const isSetupRequired = isPaymentSetupRequired({
    hasProduct: selected !== null,
    isRecurring,
    prices: selectedPrices,
    amount: row.amount,
    discount: discountFacts,
  });
  const selectedPrice = selectedPrices.find((p) => p.id === row.product_price_id) ?? selectedPrices[0] ?? null;
  const prices: Record<string, ProductPrice[]> = {};
  for (const product of row.products) prices[product.id] = pricesIn(product, row.currency).map(toProductPrice);
  const pageUrl = `${urls.checkoutBaseUrl}/checkout/${row.client_secret}`;

  return {
    id: row.id,
    created_at: toIso(row.created_at),
    modified_at: toIsoOrNull(row.modified_at),
    custom_field_data: row.custom_field_data,
    payment_processor: "stripe",
    status: row.status,
    client_secret: row.client_secret,
    url: pageUrl,
    expires_at: toIso(row.expires_at),
    success_url: (row.success_url ?? `${pageUrl}/confirmation`).replaceAll("{CHECKOUT_ID}", row.id),
    return_url: row.return_url,
    embed_origin: row.embed_origin,
    amount: row.amount,
    seats: row.seats,
    min_seats: row.min_seats,
    max_seats: row.max_seats,
    discount_amount: row.discount_amount,
    net_amount: row.net_amount,
    tax_amount: row.tax_amount,
    tax_behavior: row.tax_behavior,
    total_amount: totalAmount,
    currency: row.currency,
    allow_trial: row.allow_trial,
    active_trial_interval: trial.interval,
    active_trial_interval_count: trial.count,
    trial_end: toIsoOrNull(row.trial_end),
    organization_id: row.organization_id,
    product_id: row.product_id,
    product_price_id: selectedPrice?.id ?? row.product_price_id,
    discount_id: row.discount_id,
    allow_discount_codes: row.allow_discount_codes,
    require_billing_address: row.require_billing_address,
    is_discount_applicable: isDiscountApplicable(selectedPrices),
    is_free_product_price: isFreeProductPrice(selectedPrices),
    is_payment_required: isPaymentRequired,
    is_payment_setup_required: isSetupRequired,
    is_payment_form_required: isPaymentRequired || isSetupRequired,
    customer_id: row.customer_id,
    is_business_customer: row.is_business_customer,
    customer_name: row.customer_name,
    customer_email: row.customer_email,
    customer_ip_address: row.customer_ip_address,
    customer_billing_name: row.customer_billing_name,
    customer_billing_address: row.customer_billing_address,
    customer_tax_id: row.customer_tax_id,
    locale: row.locale,
    payment_method_type: row.payment_method_type,
    payment_processor_metadata: row.payment_processor_metadata,
    billing_address_fields: billingAddressFields({
      address: row.customer_billing_address,
      requireBillingAddress: row.require_billing_address,
      isBusinessCustomer: row.is_business_customer,
      paymentMethodType: row.payment_method_type,
    }),
    trial_interval: row.trial_interval,
    trial_interval_count: row.trial_interval_count,
    metadata: row.metadata,
    external_customer_id: row.external_customer_id,
    products,
    product: products.find((p) => p.id === row.product_id) ?? null,
    product_price: selectedPrice ? toProductPrice(selectedPrice) : null,
    prices,
    discount: row.discount ? toCheckoutDiscount(row.discount, row.currency) : null,
    subscription_id: row.subscription_id,
    attached_custom_fields: selected ? selected.attached_custom_fields.map(toAttachedCustomField) : [],
    customer_metadata: row.customer_metadata,
  };
}

/** The buyer's view: the merchant's own fields removed, the seller's identity added. */
export function toCheckoutPublic(row: CheckoutWithRelations, urls: CheckoutUrls, organization: OrganizationRow): CheckoutPublic {
  const full: Record<string, unknown> = { ...toCheckout(row, urls) };
  for (const key of MERCHANT_ONLY_FIELDS) delete full[key];
  return { ...(full as Omit<CheckoutPublic, "organization">), organization: toCheckoutOrganization(organization) };
}
