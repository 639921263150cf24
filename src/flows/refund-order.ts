import type { Deps } from "../context.ts";
import type { Executor } from "../db/database.ts";
import type { OrganizationScope } from "../http/auth.ts";
import {
  ProcessorUnreachable,
  type PaymentProcessor,
  type ProcessorRefundUpdate,
  type RefundOutcome,
} from "../adapters/payment-processors/payment-processor.ts";
import { ResourceNotFound } from "../http/errors.ts";
import { enqueueJob, removeJob } from "../jobs/queue.ts";
import { TaskName } from "../jobs/task-names.ts";
import { toRefund } from "../modules/refunds/refunds.mapper.ts";
import { revokeOrderBenefits } from "../modules/benefits/benefit-revocations.steps.ts";
import {
  lockOrderForRefund,
  recordOrderRefund,
  recordOrderRefundReverted,
  reissueRefundedOrderDocuments,
} from "../modules/orders/order-refunds.steps.ts";
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
  findRefund,
  findRefundForUpdate,
  heldByPendingRefunds,
  isPaid,
  openRefund,
  refundedTotals,
  revertedTotals,
  settleRefund,
} from "../modules/refunds/refunds.steps.ts";
import type { RefundRow } from "../modules/refunds/refunds.table.ts";
import { writeRefundIssuedEmail } from "./refund-issued-email.ts";

/** The order locked and checked for the refund, and the payment whose charge gives the money back. */
async function lockRefundable(trx: Executor, input: RefundCreate, allowed: OrganizationScope) {
  const locked = await lockOrderForRefund(trx, input.order_id, allowed);
  const held = locked ? await heldByPendingRefunds(trx, locked.order.id) : { amount: 0, tax_amount: 0 };
  const order = checkRefundable(locked, held, input);
  const payment = isPaid(order) ? await refundableCharge(trx, order.id) : undefined;
  if (!payment) throw new RefundUnknownPayment(order.id);
  return { order, held, payment };
}

/**
 * What a succeeded refund changes beyond its row: the order's totals and status, its webhooks, the
 * grants, the receipt, the credit note, and the customer's email.
 */
async function applyToOrder(trx: Executor, deps: Deps, order: OrderRow, refund: RefundRow, now: Date): Promise<void> {
  const updated = await recordOrderRefund(trx, order, refundedTotals(order, refund), now);
  if (refund.revoke_benefits) await revokeOrderBenefits(trx, order.id, now);
  const creditNote = await reissueRefundedOrderDocuments(trx, updated, refund, now);
  await writeRefundIssuedEmail(trx, deps, { order: updated, refund, creditNote, now });
}

/** How long a refund whose request died before Stripe's answer was settled waits before the recovery asks again. */
const REFUND_RECOVERY_DELAY_MS = 5 * 60 * 1000;
const recoveryKey = (refundId: string) => `${TaskName.refundSettle}:${refundId}`;

/**
 * Asks the processor to give a pending refund back (idempotent by the refund's id: asked again,
 * it answers the refund it made), then settles it under the order's row lock: the order's changes
 * (succeeded), nothing more (failed), or the processor's reference while it stays pending (its
 * events settle it). Unreachable, the refund stays pending for the recovery to ask again.
 */
async function settleWithProcessor(deps: Deps, processor: PaymentProcessor, refund: RefundRow, chargeReference: string): Promise<Refund> {
  let outcome: RefundOutcome;
  try {
    outcome = await processor.refund({
      refundId: refund.id,
      chargeReference,
      amount: refund.amount + refund.tax_amount,
      currency: refund.currency,
    });
  } catch (error) {
    if (error instanceof ProcessorUnreachable) return toRefund(refund);
    throw error;
  }
  return deps.db.transaction().execute(async (trx) => {
    const now = deps.now();
    const locked = await lockOrderForRefund(trx, refund.order_id, null);
    const current = await findRefundForUpdate(trx, refund.id);
    if (!locked || !current) throw new ResourceNotFound();
    await removeJob(trx, recoveryKey(refund.id));
    // The processor's event got here first.
    if (current.status !== "pending") return toRefund(current);
    const settled = await settleRefund(trx, current.id, outcome, now);
    if (settled.status === "succeeded") await applyToOrder(trx, deps, locked.order, settled, now);
    return closeRefund(trx, settled, now);
  });
}

/**
 * Refunds part or all of an order's payment. The refund row commits first, under the order's row
 * lock, with the checks (`pending`, `refund.created`; a pending refund holds its amount, so a
 * concurrent refund of the same order sees what is left) and its recovery job; the processor is
 * asked outside any transaction; its answer settles the refund in a second one. A process that dies
 * between the two leaves a pending refund the recovery job (or the processor's events) settles:
 * money given back is never left unrecorded, and asking again never refunds twice.
 */
export async function refundOrder(
  deps: Deps,
  processor: PaymentProcessor,
  input: RefundCreate,
  allowed: OrganizationScope,
): Promise<Refund> {
  const opened = await deps.db.transaction().execute(async (trx) => {
    const { order, held, payment } = await lockRefundable(trx, input, allowed);
    const now = deps.now();
    const pending = await openRefund(trx, order, held, payment.id, input, now);
    await enqueueJob(
      trx,
      TaskName.refundSettle,
      { refundId: pending.id },
      { runAt: new Date(now.getTime() + REFUND_RECOVERY_DELAY_MS), jobKey: recoveryKey(pending.id) },
    );
    return { pending, chargeReference: payment.chargeReference };
  });
  return settleWithProcessor(deps, processor, opened.pending, opened.chargeReference);
}

/** The recovery job's entry: asks again about a refund still pending (the same idempotent request), else does nothing. */
export async function recoverRefund(deps: Deps, processor: PaymentProcessor, refundId: string): Promise<void> {
  const refund = await findRefund(deps.db, refundId, null);
  if (refund?.status !== "pending") return;
  const charge = await refundableCharge(deps.db, refund.order_id);
  if (charge) await settleWithProcessor(deps, processor, refund, charge.chargeReference);
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
export async function settleRefundLater(trx: Executor, deps: Deps, update: ProcessorRefundUpdate, now: Date): Promise<void> {
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
    if (settled.status === "succeeded") await applyToOrder(trx, deps, locked.order, settled, now);
    await closeRefund(trx, settled, now);
  } else if (refund.status === "succeeded" && outcome.status === "failed") {
    const failed = await settleRefund(trx, refund.id, outcome, now);
    await recordOrderRefundReverted(trx, locked.order, revertedTotals(locked.order, refund), now);
    await closeRefund(trx, failed, now);
  }
}
