import { scaleHalfToEven } from "../../values/money.ts";
import { refundableAmount, refundableTaxAmount, refundBase, type RefundTotals } from "../orders/order-refunds.steps.ts";
import type { OrderStatus } from "../orders/orders.table.ts";

/**
 * The tax share of refunding `amount` (pre-tax) of the order, by one rule (docs/decisions.md,
 * "Refunds: the tax share"): refunding all that remains refunds all the tax that remains;
 * otherwise `amount × tax / net`, rounded half to even, never more than the tax that remains.
 * An untaxed order refunds no tax. The caller has checked `0 < amount ≤ refundableAmount(order)`.
 */
export function refundTaxShare(order: RefundTotals, amount: number): number {
  const remainingTax = refundableTaxAmount(order);
  if (remainingTax === 0 || order.net_amount <= 0) return 0;
  if (amount >= refundableAmount(order)) return remainingTax;
  return Math.min(scaleHalfToEven(amount, order.tax_amount, order.net_amount), remainingTax);
}

/** The order's status once `refunded` of its pre-tax amount is refunded: `refunded` at the base, `partially_refunded` below it. */
export const statusAfterRefund = (order: RefundTotals, refunded: number): OrderStatus =>
  refunded >= refundBase(order) ? "refunded" : "partially_refunded";
