import { toIso, toIsoOrNull } from "../../schema/primitives.ts";
import { toDiscountBase } from "../discounts/discounts.mapper.ts";
import { toCheckoutProduct } from "../products/products.mapper.ts";
import type { CheckoutLinkWithRelations } from "./checkout-links.repository.ts";
import type { CheckoutLink } from "./checkout-links.schemas.ts";

/** The address a link is shared by: it opens a new checkout session and redirects to it. */
export const checkoutLinkUrl = (publicBaseUrl: string, clientSecret: string): string =>
  `${publicBaseUrl}/v1/checkout-links/${clientSecret}/redirect`;

export const toCheckoutLink = (row: CheckoutLinkWithRelations, publicBaseUrl: string): CheckoutLink => ({
  id: row.id,
  created_at: toIso(row.created_at),
  modified_at: toIsoOrNull(row.modified_at),
  trial_interval: row.trial_interval,
  trial_interval_count: row.trial_interval_count,
  metadata: row.metadata,
  payment_processor: "stripe",
  client_secret: row.client_secret,
  success_url: row.success_url,
  return_url: row.return_url,
  label: row.label,
  allow_discount_codes: row.allow_discount_codes,
  require_billing_address: row.require_billing_address,
  discount_id: row.discount_id,
  seats: row.seats,
  organization_id: row.organization_id,
  products: row.products.map((product) => ({ ...toCheckoutProduct(product), metadata: product.metadata })),
  discount: row.discount ? toDiscountBase(row.discount) : null,
  url: checkoutLinkUrl(publicBaseUrl, row.client_secret),
});
