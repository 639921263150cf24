import type { Deps } from "../context.ts";
import type { Executor } from "../db/database.ts";
import type { OrganizationScope } from "../http/auth.ts";
import type { PaymentProcessor, ProcessorRefundUpdate } from "../adapters/payment-processors/payment-processor.ts";
import { revokeOrderBenefits } from "../modules/benefits/benefit-revocations.steps.ts";
import { lockOrderForRefund, recordOrderRefund, reissueRefundedOrderDocuments } from "../modules/orders/order-refunds.steps.ts";
import type { OrderRow } from "../modules/orders/orders.table.ts";
import { refundableCharge } from "../modules/payments/payment-refunds.steps.ts";
import type { RefundCreate } from "../modules/refunds/refund-inputs.schemas.ts";
import { RefundUnknownPayment } from "../modules/refunds/refunds.errors.ts";
import type { Refund } from "../modules/refunds/refunds.schemas.ts";
import { ProcessorEventTooEarly } from "../modules/processor-events/processor-events.errors.ts";
import {
  checkRefundable,
  closeRefund,
  findProcessorRefund,
  findRefundForUpdate,
  heldByPendingRefunds,
  isPaid,
  openRefund,
  refundedTotals,
  revertedTotals,
  settleRefund,
} from "../modules/refunds/refunds.steps.ts";
import type { RefundRow } from "../modules/refunds/refunds.table.ts";

/** The order locked and checked for the refund, and the payment whose charge gives the money back. */
async function lockRefundable(trx: Executor, input: RefundCreate, allowed: OrganizationScope) {
  const locked = await lockOrderForRefund(trx, input.order_id, allowed);
  const held = locked ? await heldByPendingRefunds(trx, locked.order.id) : { amount: 0, tax_amount: 0 };
  const order = checkRefundable(locked, held, input);
  const payment = isPaid(order) ? await refundableCharge(trx, order.id) : undefined;
  if (!payment) throw new RefundUnknownPayment(order.id);
  return { order, held, payment };
}

/** What a succeeded refund changes beyond its row: the order's totals and status, its webhooks, the grants, the receipt. */
async function applyToOrder(trx: Executor, order: OrderRow, refund: RefundRow, now: Date): Promise<void> {
  const updated = await recordOrderRefund(trx, order, refundedTotals(order, refund), now);
  if (refund.revoke_benefits) await revokeOrderBenefits(trx, order.id, now);
  await reissueRefundedOrderDocuments(trx, updated, refund, now);
}

/**
 * Refunds part or all of an order's payment, in one transaction under the order's row lock:
 * the checks, the refund row (`pending`, `refund.created`), the processor's refund, then either
 * the order's changes (succeeded) or nothing more (failed), and `refund.updated`. A concurrent
 * refund of the same order waits for the lock and then sees what is left.
 */
export function refundOrder(deps: Deps, processor: PaymentProcessor, input: RefundCreate, allowed: OrganizationScope): Promise<Refund> {
  return deps.db.transaction().execute(async (trx) => {
    const { order, held, payment } = await lockRefundable(trx, input, allowed);
    const now = deps.now();
    const pending = await openRefund(trx, order, held, payment.id, input, now);
    const outcome = await processor.refund({
      refundId: pending.id,
      chargeReference: payment.chargeReference,
      amount: pending.amount + pending.tax_amount,
      currency: order.currency,
    });
    const settled = await settleRefund(trx, pending.id, outcome, now);
    if (settled.status === "succeeded") await applyToOrder(trx, order, settled, now);
    return closeRefund(trx, settled, now);
  });
}

/**
 * A refund's later outcome, from the processor's event, in the event's transaction under the
 * order's row lock (the lock `refundOrder` holds while it asks the processor): a pending refund
 * succeeds (counted on the order as `refundOrder` counts it) or fails (nothing else changes); a
 * succeeded refund that fails after all is taken off the order's totals. A refund of ours whose
 * request has not committed yet is retried (`ProcessorEventTooEarly`); one made outside this
 * server, on the processor's dashboard, is not recorded (docs/decisions.md). Repeated or stale
 * updates change nothing: a failed refund stays failed, a succeeded one never goes back to pending.
 */
export async function settleRefundLater(trx: Executor, update: ProcessorRefundUpdate, now: Date): Promise<void> {
  const { refund: named, ours } = await findProcessorRefund(trx, update);
  if (!named) {
    if (ours) throw new ProcessorEventTooEarly(`Refund ${update.refundId}`);
    return;
  }
  const locked = await lockOrderForRefund(trx, named.order_id, null);
  const refund = await findRefundForUpdate(trx, named.id);
  if (!locked || !refund) return;
  const { outcome } = update;
  if (refund.status === "pending") {
    if (outcome.status === "pending") return;
    const settled = await settleRefund(trx, refund.id, outcome, now);
    if (settled.status === "succeeded") await applyToOrder(trx, locked.order, settled, now);
    await closeRefund(trx, settled, now);
  } else if (refund.status === "succeeded" && outcome.status === "failed") {
    const failed = await settleRefund(trx, refund.id, outcome, now);
    await recordOrderRefund(trx, locked.order, revertedTotals(locked.order, refund), now);
    await closeRefund(trx, failed, now);
  }
}
