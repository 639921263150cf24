import type { OrderRow } from "./orders.table.ts";

// The money rules of an order: what it still asks of the customer, and what of it is left to refund.

/** What a pending order still asks of the customer: its total less the balance already applied. */
export const dueAmount = (order: Pick<OrderRow, "total_amount" | "applied_balance_amount">): number =>
  Math.max(order.total_amount + order.applied_balance_amount, 0);

/** The totals an order's refunds are measured against. */
export type RefundTotals = Pick<
  OrderRow,
  "net_amount" | "applied_balance_amount" | "tax_amount" | "refunded_amount" | "refunded_tax_amount"
>;

/** What the order's payment covered before tax: the net amount with the customer's balance applied. */
export const refundBase = (order: RefundTotals): number => order.net_amount + order.applied_balance_amount;

/** The part of the pre-tax amount not refunded yet (never negative), whatever the status. */
export const refundableAmount = (order: RefundTotals): number => Math.max(0, refundBase(order) - order.refunded_amount);

/** The tax not refunded yet (never negative), whatever the status. */
export const refundableTaxAmount = (order: RefundTotals): number => Math.max(0, order.tax_amount - order.refunded_tax_amount);
