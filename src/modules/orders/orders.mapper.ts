import { isoFrom, isoFromOrNull, type EitherTimestamps } from "../../db/jsonified.ts";
import { toIso, toIsoOrNull } from "../../schema/primitives.ts";
import { toCustomer } from "../customers/customers.mapper.ts";
import type { CustomerRow } from "../customers/customers.table.ts";
import { toDiscountBase } from "../discounts/discounts.mapper.ts";
import type { DiscountRow } from "../discounts/discounts.table.ts";
import { toProductSummary } from "../products/products.mapper.ts";
import type { ProductRow } from "../products/products.table.ts";
import { dueAmount, refundableAmount, refundableTaxAmount } from "./order-amounts.ts";
import type { Order, OrderItem } from "./orders.schemas.ts";
import type { OrderItemRow, OrderRow } from "./orders.table.ts";
import type { OrderEmbeddedRow } from "./orders.repository.ts";
import type { Database } from "../../db/database.ts";
import type { Selectable } from "kysely";

/** A subscriptions row, typed through the database schema: orders embed only a summary of it (`subscriptionJson`). */
type SubscriptionRecord = Selectable<Database["subscriptions"]>;

/**
 * A subscription's own fields: the portal's order summary of it; with metadata, the organization's;
 * and the base of the full `Subscription`. Meter periods arrive with usage billing.
 */
export const toSubscriptionFields = (row: EitherTimestamps<SubscriptionRecord>) => ({
  created_at: isoFrom(row.created_at),
  modified_at: isoFromOrNull(row.modified_at),
  id: row.id,
  amount: row.amount,
  currency: row.currency,
  recurring_interval: row.recurring_interval,
  recurring_interval_count: row.recurring_interval_count,
  status: row.status,
  current_period_start: isoFrom(row.current_period_start),
  current_period_end: isoFrom(row.current_period_end),
  current_meter_period_start: null,
  current_meter_period_end: null,
  trial_start: isoFromOrNull(row.trial_start),
  trial_end: isoFromOrNull(row.trial_end),
  cancel_at_period_end: row.cancel_at_period_end,
  canceled_at: isoFromOrNull(row.canceled_at),
  started_at: isoFromOrNull(row.started_at),
  ends_at: isoFromOrNull(row.ends_at),
  ended_at: isoFromOrNull(row.ended_at),
  past_due_at: isoFromOrNull(row.past_due_at),
  pause_at_period_end: row.pause_at_period_end,
  paused_at: isoFromOrNull(row.paused_at),
  resumes_at: isoFromOrNull(row.resumes_at),
  customer_id: row.customer_id,
  product_id: row.product_id,
  discount_id: row.discount_id,
  checkout_id: row.checkout_id,
  seats: row.seats,
  customer_cancellation_reason: row.customer_cancellation_reason,
  customer_cancellation_comment: row.customer_cancellation_comment,
});

export const toOrderItem = (item: EitherTimestamps<OrderItemRow>): OrderItem => ({
  created_at: isoFrom(item.created_at),
  modified_at: isoFromOrNull(item.modified_at),
  id: item.id,
  label: item.label,
  amount: item.amount,
  tax_amount: item.tax_amount,
  proration: item.proration,
  product_price_id: item.product_price_id,
});

const REFUNDABLE: ReadonlySet<OrderRow["status"]> = new Set(["paid", "partially_refunded"]);

/** The order's own fields, shared by the organization's and the customer's view. */
export function toOrderFields(order: OrderRow, items: readonly EitherTimestamps<OrderItemRow>[]) {
  const refundable = REFUNDABLE.has(order.status);
  return {
    id: order.id,
    created_at: toIso(order.created_at),
    modified_at: toIsoOrNull(order.modified_at),
    status: order.status,
    paid: order.status === "paid" || order.status === "partially_refunded" || order.status === "refunded",
    subtotal_amount: order.subtotal_amount,
    discount_amount: order.discount_amount,
    net_amount: order.net_amount,
    tax_amount: order.tax_amount,
    total_amount: order.total_amount,
    applied_balance_amount: order.applied_balance_amount,
    // Only an order still waiting for its payment owes anything.
    due_amount: order.status === "pending" ? dueAmount(order) : 0,
    refunded_amount: order.refunded_amount,
    refunded_tax_amount: order.refunded_tax_amount,
    currency: order.currency,
    billing_reason: order.billing_reason,
    billing_name: order.billing_name,
    billing_address: order.billing_address,
    invoice_number: order.invoice_number,
    is_invoice_generated: order.invoice_path !== null,
    receipt_number: order.receipt_number,
    seats: order.seats,
    customer_id: order.customer_id,
    product_id: order.product_id,
    discount_id: order.discount_id,
    subscription_id: order.subscription_id,
    checkout_id: order.checkout_id,
    next_payment_attempt_at: toIsoOrNull(order.next_payment_attempt_at),
    items: items.map(toOrderItem),
    description: order.description,
    refundable_amount: refundable ? refundableAmount(order) : 0,
    refundable_tax_amount: refundable ? refundableTaxAmount(order) : 0,
  };
}

/** The embedded relations, read directly or through JSON aggregation (timestamps as text). */
export interface OrderRelations {
  items: readonly EitherTimestamps<OrderItemRow>[];
  customer: Parameters<typeof toCustomer>[0];
  product: EitherTimestamps<ProductRow> | null;
  discount: EitherTimestamps<DiscountRow> | null;
  subscription: EitherTimestamps<SubscriptionRecord> | null;
}

export function toOrder(order: OrderRow, related: OrderRelations): Order {
  const customer = toCustomer(related.customer);
  return {
    ...toOrderFields(order, related.items),
    metadata: order.metadata,
    custom_field_data: order.custom_field_data,
    platform_fee_amount: order.platform_fee_amount,
    platform_fee_currency: order.platform_fee_currency,
    customer: { ...customer, email: customer.email ?? null },
    product: related.product ? toProductSummary(related.product) : null,
    discount: related.discount ? toDiscountBase(related.discount) : null,
    subscription: related.subscription ? { metadata: related.subscription.metadata, ...toSubscriptionFields(related.subscription) } : null,
  };
}

/** An order read with its relations aggregated as JSON (`pageOrdersEmbedded`, `findOrderEmbedded`). */
export function toEmbeddedOrder({
  items,
  customer,
  product,
  discount,
  subscription,
  ...order
}: Omit<OrderEmbeddedRow, "items"> & Pick<OrderRelations, "items">): Order {
  // The customer is a foreign key of the order: it is always there.
  if (!customer) throw new Error(`order ${order.id} without its customer`);
  // JSON aggregation widens the stored `[number, format]` tax id pair to a list.
  return toOrder(order, {
    items,
    customer: { ...customer, tax_id: customer.tax_id as CustomerRow["tax_id"] },
    product,
    discount,
    subscription,
  });
}

/** An embedded order's own row and its read schema (an update that answered both in one statement). */
export function splitEmbeddedOrder(embedded: OrderEmbeddedRow): { row: OrderRow; order: Order } {
  const { items, customer, product, discount, subscription, ...row } = embedded;
  return { row, order: toEmbeddedOrder(embedded) };
}
