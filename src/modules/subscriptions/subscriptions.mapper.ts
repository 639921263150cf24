import type { CustomerRow } from "../customers/customers.table.ts";
import { toCustomer } from "../customers/customers.mapper.ts";
import { toDiscountBase } from "../discounts/discounts.mapper.ts";
import { toSubscriptionFields } from "../orders/orders.mapper.ts";
import { toProduct, toProductPrice } from "../products/products.mapper.ts";
import type { SubscriptionEmbeddedRow } from "./subscriptions.repository.ts";
import type { Subscription, SubscriptionMeter } from "./subscriptions.schemas.ts";

/**
 * A subscription read with its relations aggregated as JSON (`findSubscriptionEmbedded`,
 * `pageSubscriptionsEmbedded`), with its meters computed for the current period (`subscriptionMeters`).
 */
export function toSubscription(
  { customer, product, discount, prices, ...row }: SubscriptionEmbeddedRow,
  meters: readonly SubscriptionMeter[],
): Subscription {
  // Customer and product are foreign keys of the row: they are always there.
  if (!customer || !product) throw new Error(`subscription ${row.id} without its customer or product`);
  // JSON aggregation widens the stored `[number, format]` tax id pair to a list.
  const buyer = toCustomer({ ...customer, tax_id: customer.tax_id as CustomerRow["tax_id"] });
  return {
    ...toSubscriptionFields(row),
    metadata: row.metadata,
    custom_field_data: row.custom_field_data,
    customer: { ...buyer, email: buyer.email ?? null },
    product: toProduct(product),
    discount: discount ? toDiscountBase(discount) : null,
    prices: prices.map(toProductPrice),
    meters: [...meters],
    pending_update: row.pending_update
      ? {
          id: row.pending_update.id,
          created_at: row.pending_update.created_at,
          modified_at: null,
          applies_at: row.pending_update.applies_at,
          product_id: row.pending_update.product_id,
          seats: row.pending_update.seats,
        }
      : null,
  };
}
