import type { Executor } from "../../db/database.ts";
import { recordWebhookEvent } from "../../jobs/webhook-outbox.ts";
import type { ProcessorRefundUpdate, RefundOutcome } from "../../adapters/payment-processors/payment-processor.ts";
import type { OrderRow, OrderStatus } from "../orders/orders.table.ts";
import { refundTaxShare, statusAfterRefund } from "./refund-amounts.ts";
import type { RefundCreate } from "./refund-inputs.schemas.ts";
import { RefundedAlready, RevokeSubscriptionBenefitsProhibited, amountAboveRefundable, orderNotFound } from "./refunds.errors.ts";
import { toRefund } from "./refunds.mapper.ts";
import { findRefundForUpdate, findRefundOfProcessor, insertRefund, pendingRefundsOf, updateRefund } from "./refunds.repository.ts";
import type { Refund } from "./refunds.schemas.ts";
import type { RefundRow } from "./refunds.table.ts";

// A refund's own rules and rows, for the refund flow's transaction.

/** Only a paid order's money can go back; a pending, draft or void order has none taken. */
const PAID: ReadonlySet<OrderStatus> = new Set(["paid", "partially_refunded"]);

export const isPaid = (order: OrderRow): boolean => PAID.has(order.status);

const publishRefund = (db: Executor, type: "refund.created" | "refund.updated", row: RefundRow, now: Date) =>
  recordWebhookEvent(db, { organizationId: row.organization_id, type, data: toRefund(row), now });

/** What the order's refunds still pending at the processor hold: their amounts and tax shares. */
export interface HeldByPendingRefunds {
  amount: number;
  tax_amount: number;
}

/**
 * What the order's pending refunds hold (a processor that settles refunds later, like Stripe): a
 * new refund sees them as refunded, so two refunds in flight never give back more than was paid
 * nor more tax than was charged. They reach the order's totals only when they succeed.
 */
export async function heldByPendingRefunds(db: Executor, orderId: string): Promise<HeldByPendingRefunds> {
  const pending = await pendingRefundsOf(db, orderId);
  return { amount: pending.reduce((sum, r) => sum + r.amount, 0), tax_amount: pending.reduce((sum, r) => sum + r.tax_amount, 0) };
}

/** The order as a new refund counts it: its pending refunds taken as refunded. */
const countingHeld = (order: OrderRow, held: HeldByPendingRefunds): OrderRow => ({
  ...order,
  refunded_amount: order.refunded_amount + held.amount,
  refunded_tax_amount: order.refunded_tax_amount + held.tax_amount,
});

/**
 * The hosted service's checks, in its order, on the order locked for the refund: visible, not refunded
 * already, no benefit revocation on a subscription's order, not more than refundable (less what
 * pending refunds hold). Returns the order.
 */
export function checkRefundable(
  locked: { order: OrderRow; refundable: number } | undefined,
  held: HeldByPendingRefunds,
  input: RefundCreate,
): OrderRow {
  if (!locked) throw orderNotFound(input.order_id);
  const { order } = locked;
  const refundable = locked.refundable - held.amount;
  if (order.status === "refunded") throw new RefundedAlready(order.id);
  if (input.revoke_benefits && order.subscription_id !== null) throw new RevokeSubscriptionBenefitsProhibited();
  if (input.amount > refundable) throw amountAboveRefundable(input.amount);
  return order;
}

/** The refund row, `pending` with its tax share (of what pending refunds leave), and its `refund.created`. */
export async function openRefund(
  db: Executor,
  order: OrderRow,
  held: HeldByPendingRefunds,
  paymentId: string,
  input: RefundCreate,
  now: Date,
): Promise<RefundRow> {
  const pending = await insertRefund(db, {
    created_at: now,
    modified_at: null,
    organization_id: order.organization_id,
    order_id: order.id,
    subscription_id: order.subscription_id,
    customer_id: order.customer_id,
    payment_id: paymentId,
    status: "pending",
    reason: input.reason,
    amount: input.amount,
    tax_amount: refundTaxShare(countingHeld(order, held), input.amount),
    currency: order.currency,
    comment: input.comment ?? null,
    revoke_benefits: input.revoke_benefits ?? false,
    metadata: JSON.stringify(input.metadata ?? {}),
    processor_reference: null,
    failure_message: null,
  });
  await publishRefund(db, "refund.created", pending, now);
  return pending;
}

/** The refund as the processor answered: succeeded with its reference, or failed with its message. */
export const settleRefund = (db: Executor, refundId: string, outcome: RefundOutcome, now: Date): Promise<RefundRow> =>
  updateRefund(
    db,
    refundId,
    outcome.status === "failed"
      ? { status: "failed", failure_message: outcome.message, modified_at: now }
      : { status: outcome.status, processor_reference: outcome.reference, modified_at: now },
  );

/** The `refund.updated` of a settled refund; returns the refund as the API answers it. */
export async function closeRefund(db: Executor, settled: RefundRow, now: Date): Promise<Refund> {
  await publishRefund(db, "refund.updated", settled, now);
  return toRefund(settled);
}

/** The order's refunded totals and status once a succeeded refund is counted. */
export function refundedTotals(order: OrderRow, refund: RefundRow): Pick<OrderRow, "refunded_amount" | "refunded_tax_amount" | "status"> {
  const refunded = order.refunded_amount + refund.amount;
  return {
    refunded_amount: refunded,
    refunded_tax_amount: order.refunded_tax_amount + refund.tax_amount,
    status: statusAfterRefund(order, refunded),
  };
}

/** The order's refunded totals and status once a succeeded refund fails after all (the processor gave the money back to us). */
export function revertedTotals(order: OrderRow, refund: RefundRow): Pick<OrderRow, "refunded_amount" | "refunded_tax_amount" | "status"> {
  const refunded = order.refunded_amount - refund.amount;
  return {
    refunded_amount: refunded,
    refunded_tax_amount: order.refunded_tax_amount - refund.tax_amount,
    status: refunded > 0 ? statusAfterRefund(order, refunded) : "paid",
  };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The refund a processor's update is about, unlocked: by our id where the update carries a valid
 * one, else by the processor's refund id. `ours` says whether the update names one of ours (then a
 * missing row is one whose request has not committed yet).
 */
export async function findProcessorRefund(
  db: Executor,
  update: ProcessorRefundUpdate,
): Promise<{ refund: RefundRow | undefined; ours: boolean }> {
  const id = update.refundId !== null && UUID.test(update.refundId) ? update.refundId : null;
  const refund = await findRefundOfProcessor(db, id !== null ? { id } : { reference: update.reference });
  return { refund, ours: id !== null };
}

export { findRefundForUpdate };

// What an order's documents read of its refunds (handed to orders by services.ts).
export { succeededRefunds } from "./refunds.repository.ts";
