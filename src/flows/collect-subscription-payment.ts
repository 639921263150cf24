import type { Executor } from "../db/database.ts";
import type { OffSessionChargeOutcome } from "../adapters/payment-processors/payment-processor.ts";
import { defaultPaymentMethodId } from "../modules/customers/customers.steps.ts";
import { dueAmount, findOrderForUpdate } from "../modules/orders/orders.steps.ts";
import type { OrderRow } from "../modules/orders/orders.table.ts";
import {
  attemptKey,
  findPaymentMethod,
  isUnrecoverableDecline,
  nextAttemptKey,
  orderAttempts,
  recordDeclinedPayment,
  recordPayment,
} from "../modules/payments/payments.steps.ts";
import type { PaymentMethodRow, PaymentTrigger } from "../modules/payments/payments.table.ts";
import { PaymentFailed } from "../modules/subscriptions/subscriptions.errors.ts";
import { findSubscriptionOfOrderForUpdate } from "../modules/subscriptions/subscriptions.steps.ts";
import type { SubscriptionRow } from "../modules/subscriptions/subscriptions.table.ts";
import { forgetDetachedMethod } from "./detach-payment-method.ts";
import { settleCharge } from "./subscription-charge-settlement.ts";
import type { LockedCharge, SubscriptionFlowContext } from "./subscription-flow-context.ts";
import { settleWaitingPayments } from "./subscription-waiting-payments.ts";

// Collecting a subscription order's payment: the order locked, the off-session charge on the saved
// method, its outcome settled (subscription-charge-settlement.ts).

/**
 * Locks a subscription order for a charge as every change of a subscription does, the
 * subscription first and then the order, so a revoke either waits for the charge or voids the
 * order first (then nothing is charged). Null when either is gone.
 */
export async function lockForCharge(trx: Executor, orderId: string): Promise<LockedCharge | null> {
  const row = await findSubscriptionOfOrderForUpdate(trx, orderId);
  if (!row) return null;
  const order = await findOrderForUpdate(trx, orderId, { allowed: null });
  return order ? { row, order } : null;
}

/**
 * Charges a locked pending order on `method`, records the attempt and settles the order. The
 * processor's idempotency key is the order and the attempt's number, so a run that died before
 * committing repeats the same attempt rather than charging twice. A customer's own attempt
 * (`retry_customer`) settles the order only when it succeeds: a failed one is recorded but neither
 * counted toward dunning nor moves its schedule. A saved method the processor no longer accepts at
 * all is forgotten as a detached one is (its subscriptions moved to another method, if any), and
 * the charge fails as a decline does. `priorAttempts`, the order's attempts so far when the caller
 * counted them already under the lock (orderAttempts), else counted here.
 */
export async function chargeLocked(
  trx: Executor,
  ctx: SubscriptionFlowContext,
  locked: LockedCharge,
  method: PaymentMethodRow,
  trigger: PaymentTrigger,
  priorAttempts?: number,
): Promise<OffSessionChargeOutcome> {
  const { order } = locked;
  const now = ctx.deps.now();
  const amount = dueAmount(order);
  const outcome = await ctx.payments.chargeOffSession({
    attemptId: priorAttempts === undefined ? await nextAttemptKey(trx, order.id) : attemptKey(order.id, priorAttempts),
    methodReference: method.processor_reference,
    customerReference: method.processor_customer_reference,
    organizationId: order.organization_id,
    orderId: order.id,
    trigger,
    amount,
    currency: order.currency,
  });
  const attempt = {
    organizationId: order.organization_id,
    customerId: order.customer_id,
    orderId: order.id,
    methodId: method.id,
    trigger,
    amount,
    currency: order.currency,
    now,
  };
  if (outcome.status === "succeeded") {
    await recordPayment(trx, { ...attempt, reference: outcome.reference });
    await settleCharge(trx, ctx.deps, locked, { reference: outcome.reference }, now);
  } else {
    await recordDeclinedPayment(trx, { ...attempt, declineMessage: outcome.message, declineReason: outcome.declineCode });
    if (outcome.methodUnusable) await forgetDetachedMethod(trx, method.processor_reference, now);
    const failure = { attempted: true, unrecoverable: isUnrecoverableDecline(outcome.declineCode) };
    if (trigger !== "retry_customer") await settleCharge(trx, ctx.deps, locked, failure, now);
  }
  return outcome;
}

/** The method a subscription's orders are charged on: its own, else the customer's default. */
async function methodToCharge(trx: Executor, row: SubscriptionRow): Promise<PaymentMethodRow | undefined> {
  const methodId = row.payment_method_id ?? (await defaultPaymentMethodId(trx, row.customer_id));
  return methodId ? findPaymentMethod(trx, methodId, row.customer_id) : undefined;
}

/**
 * Charges a pending subscription order off-session on its saved method and records the outcome.
 * Idempotent. Says whether the order was paid or refused (no method to charge counts as refused),
 * null when it was no longer pending.
 */
export async function collectSubscriptionPayment(
  ctx: SubscriptionFlowContext,
  orderId: string,
  trigger: PaymentTrigger,
): Promise<"paid" | "refused" | null> {
  return ctx.deps.db.transaction().execute(async (trx) => {
    const locked = await lockForCharge(trx, orderId);
    if (!locked || locked.order.status !== "pending") return null;
    // The waiting attempts and the count of all in one read; the count is reused only when none
    // waited (settling one asks the processor first, so the charge then counts again).
    const attempts = await orderAttempts(trx, orderId);
    if (await settleWaitingPayments(trx, ctx, locked, { giveUp: true, waiting: attempts.waiting })) return "paid";
    const method = await methodToCharge(trx, locked.row);
    if (!method) {
      await settleCharge(trx, ctx.deps, locked, { attempted: false, unrecoverable: false }, ctx.deps.now());
      return "refused";
    }
    const prior = attempts.waiting.length === 0 ? attempts.count : undefined;
    return (await chargeLocked(trx, ctx, locked, method, trigger, prior)).status === "succeeded" ? "paid" : "refused";
  });
}

/**
 * Charges the order of a change that bills at once (`invoice`, `reset`, an interval change) inside
 * the change's transaction: a charge that fails throws 402 `PaymentFailed`, and the whole change
 * rolls back with it, as the hosted service does. Both rows are locked by the caller.
 */
export async function chargeBeforeCommit(trx: Executor, ctx: SubscriptionFlowContext, locked: LockedCharge): Promise<void> {
  const method = await methodToCharge(trx, locked.row);
  if (!method) throw new PaymentFailed("missing_payment_method");
  const outcome = await chargeLocked(trx, ctx, locked, method, "purchase");
  if (outcome.status !== "succeeded") throw new PaymentFailed("card_error");
}

/** A subscription order whose dunning is still running: the only kind a customer may retry. */
export const inDunning = (order: OrderRow): boolean =>
  order.status === "pending" && order.subscription_id !== null && order.next_payment_attempt_at !== null;
