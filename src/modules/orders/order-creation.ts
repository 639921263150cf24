import type { Insertable } from "kysely";
import type { Executor } from "../../db/database.ts";
import { allocate } from "../../values/money.ts";
import type { CustomerRow } from "../customers/customers.table.ts";
import { allocateOrderNumbers, type NumberingOrganization } from "./order-numbers.ts";
import { insertOrder, insertOrderItems } from "./orders.repository.ts";
import type { OrderBillingReason, OrderItemRow, OrderRow, OrdersTable } from "./orders.table.ts";
import { insertOrderWithRelations } from "./order-embedded.repository.ts";
import { toEmbeddedOrder } from "./orders.mapper.ts";
import type { Order } from "./orders.schemas.ts";
import type { StoredAddress } from "../../schema/address.ts";
import type { Metadata } from "../../schema/primitives.ts";

export interface NewOrder {
  organization: NumberingOrganization;
  customer: CustomerRow;
  checkoutId: string | null;
  /** The subscription this order bills; null for a one-time purchase. */
  subscriptionId: string | null;
  billingReason: OrderBillingReason;
  /**
   * `pending` until its payment is taken (a renewal), `paid` when written after it (a checkout),
   * `draft` until finalized (an order made through the API: its invoice number comes then).
   */
  status: "paid" | "pending" | "draft";
  /** A custom order (no catalog product) has a null id. */
  product: { id: string | null; name: string };
  /** The charged prices with the amount each contributed, in display order; `proration` marks a change's credit or debit. */
  lines: { priceId: string | null; amount: number; label: string; proration?: boolean }[];
  amounts: { subtotal: number; discount: number; net: number; tax: number; total: number; currency: string };
  /** How the tax engine came to the tax: its rate (0 when reverse-charged, null when none is collected). */
  taxRate: { basisPoints: number | null; reverseCharge: boolean };
  discountId: string | null;
  billing: { name: string | null; address: StoredAddress | null; taxId: [string, string] | null };
  seats: number | null;
  metadata: Metadata;
  customFieldData: Record<string, string | number | boolean | null>;
  /** The processor's charge id; a receipt exists only when money moved. */
  paymentReference: string | null;
  now: Date;
}

/**
 * Writes an order with its items, invoice number (unless a draft) and (when a payment was taken) receipt number.
 * Runs inside the transaction that causes the order (a checkout's success, a renewal); the numbers
 * are gap-free because their counters roll back with it.
 */
export const writeOrder = (db: Executor, input: NewOrder): Promise<{ order: OrderRow; items: OrderItemRow[] }> =>
  writeOrderWith(db, input, insertOrder);

/**
 * writeOrder, answering too the order as its `order.*` webhooks carry it (readOrder's): its insert
 * answers the embedded relations, and its items are those just written (no read after the writes).
 */
export async function writeAndReadOrder(
  db: Executor,
  input: NewOrder,
): Promise<{ order: OrderRow; items: OrderItemRow[]; published: Order }> {
  const { order: written, items } = await writeOrderWith(db, input, insertOrderWithRelations);
  const { customer, product, discount, subscription, ...order } = written;
  return { order, items, published: toEmbeddedOrder({ ...written, items }) };
}

async function writeOrderWith<Row extends OrderRow>(
  db: Executor,
  input: NewOrder,
  insert: (db: Executor, values: Insertable<OrdersTable>) => Promise<Row>,
): Promise<{ order: Row; items: OrderItemRow[] }> {
  const { invoiceNumber, receiptNumber } = await allocateOrderNumbers(db, input.organization, input.customer, {
    invoice: input.status !== "draft",
    receipt: Boolean(input.paymentReference),
  });
  const order = await insert(db, {
    created_at: input.now,
    modified_at: null,
    organization_id: input.organization.id,
    customer_id: input.customer.id,
    product_id: input.product.id,
    discount_id: input.discountId,
    subscription_id: input.subscriptionId,
    checkout_id: input.checkoutId,
    status: input.status,
    billing_reason: input.billingReason,
    subtotal_amount: input.amounts.subtotal,
    discount_amount: input.amounts.discount,
    net_amount: input.amounts.net,
    tax_amount: input.amounts.tax,
    tax_rate_basis_points: input.taxRate.basisPoints,
    tax_reverse_charge: input.taxRate.reverseCharge,
    total_amount: input.amounts.total,
    platform_fee_currency: null,
    currency: input.amounts.currency,
    billing_name: input.billing.name,
    billing_address: input.billing.address ? JSON.stringify(input.billing.address) : null,
    tax_id: input.billing.taxId ? JSON.stringify(input.billing.taxId) : null,
    invoice_number: invoiceNumber,
    invoice_path: null,
    invoice_checksum: null,
    receipt_number: receiptNumber,
    receipt_path: null,
    invoice_requested_at: null,
    receipt_requested_at: null,
    description: input.product.name,
    seats: input.seats,
    next_payment_attempt_at: null,
    payment_reference: input.paymentReference,
    metadata: JSON.stringify(input.metadata),
    custom_field_data: JSON.stringify(input.customFieldData),
  });
  // An order always has a line: without priced lines, one line carries the whole subtotal.
  const lines = input.lines.length ? input.lines : [{ priceId: null, amount: input.amounts.subtotal, label: input.product.name }];
  const taxes = allocate(
    input.amounts.tax,
    lines.map((line) => line.amount),
  );
  const items = await insertOrderItems(
    db,
    lines.map((line, position) => ({
      created_at: input.now,
      modified_at: null,
      organization_id: input.organization.id,
      order_id: order.id,
      label: line.label,
      amount: line.amount,
      tax_amount: taxes[position] ?? 0,
      product_price_id: line.priceId,
      proration: line.proration ?? false,
      position,
    })),
  );
  return { order, items };
}
