import { toIso, toIsoOrNull } from "../../kit/schema.ts";
import type { OrderItemRow, OrderRow } from "./orders.table.ts";

/**
 * The order as carried by `order.created`/`order.paid` until the orders feature ships its read
 * schema: the order's own fields and items, without the embedded customer/product summaries.
 */
export function toOrderPayload(order: OrderRow, items: readonly OrderItemRow[]) {
  return {
    id: order.id,
    created_at: toIso(order.created_at),
    modified_at: toIsoOrNull(order.modified_at),
    status: order.status,
    paid: order.status === "paid",
    subtotal_amount: order.subtotal_amount,
    discount_amount: order.discount_amount,
    net_amount: order.net_amount,
    tax_amount: order.tax_amount,
    total_amount: order.total_amount,
    applied_balance_amount: order.applied_balance_amount,
    due_amount: 0,
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
    metadata: order.metadata,
    custom_field_data: order.custom_field_data,
    platform_fee_amount: order.platform_fee_amount,
    platform_fee_currency: order.platform_fee_currency,
    description: order.description,
    items: items.map((item) => ({
      created_at: toIso(item.created_at),
      modified_at: toIsoOrNull(item.modified_at),
      id: item.id,
      label: item.label,
      amount: item.amount,
      tax_amount: item.tax_amount,
      proration: item.proration,
      product_price_id: item.product_price_id,
    })),
  };
}
