import type { Deps } from "../context.ts";
import type { Executor } from "../db/database.ts";
import type {
  ChargeOutcome,
  OffSessionChargeOutcome,
  PaymentProcessor,
  SavedPaymentMethod,
} from "../adapters/payment-processors/payment-processor.ts";
import type { TaxEngine } from "../adapters/tax-engine/tax.engine.ts";
import { enqueueJob, removeJob } from "../jobs/queue.ts";
import { TaskName } from "../jobs/task-names.ts";
import { cycleSubscriptionBenefits } from "../modules/benefits/benefits.steps.ts";
import { defaultPaymentMethodId, findCustomerEvenDeleted } from "../modules/customers/customers.steps.ts";
import {
  dueAmount,
  findOrderForUpdate,
  hasOtherDunningOrder,
  markOrderPaid,
  publishOrderUpdated,
  updateOrder,
} from "../modules/orders/orders.steps.ts";
import type { OrderRow } from "../modules/orders/orders.table.ts";
import {
  countFailedPayments,
  findPaymentMethod,
  isUnrecoverableDecline,
  keepSavedMethod,
  nextAttemptKey,
  pendingPayments,
  recordDeclinedPayment,
  recordPayment,
  settlePendingPayment,
} from "../modules/payments/payments.steps.ts";
import type { PaymentMethodRow, PaymentRow, PaymentTrigger } from "../modules/payments/payments.table.ts";
import { PaymentFailed } from "../modules/subscriptions/subscriptions.errors.ts";
import {
  dunningStep,
  findSubscriptionOfOrderForUpdate,
  markPastDue,
  moveSubscriptionsToMethod,
  recoverSubscription,
} from "../modules/subscriptions/subscriptions.steps.ts";
import type { SubscriptionRow } from "../modules/subscriptions/subscriptions.table.ts";
import { forgetDetachedMethod } from "./detach-payment-method.ts";
import { writeRenewalPaidEmail } from "./order-paid-email.ts";
import { endSubscriptionAndTell } from "./subscription-notice-email.ts";
import { writeSubscriptionPastDue } from "./subscription-past-due-email.ts";

// Collecting a subscription order's payment: the off-session charge, its settlement, dunning.

/** What the subscription flows run on: the application's dependencies, the processor and the tax engine. */
export interface SubscriptionFlowContext {
  deps: Deps;
  payments: PaymentProcessor;
  taxEngine: TaxEngine;
}

/** A subscription and one of its orders, both locked. */
export interface LockedCharge {
  row: SubscriptionRow;
  order: OrderRow;
}

/** How long an inline charge has to settle before the recovery job takes over (as a checkout's settle). */
const COLLECT_RECOVERY_DELAY_MS = 5 * 60 * 1000;
const collectJobKey = (orderId: string) => `${TaskName.subscriptionCollect}:${orderId}`;

/** Schedules the `subscription.collect` job that charges the order should the inline charge never settle (a crash). */
export const scheduleCollectRecovery = (db: Executor, orderId: string, trigger: PaymentTrigger | null, now: Date) =>
  enqueueJob(db, TaskName.subscriptionCollect, trigger ? { orderId, trigger } : { orderId }, {
    runAt: new Date(now.getTime() + COLLECT_RECOVERY_DELAY_MS),
    jobKey: collectJobKey(orderId),
  });

/** A paid charge: the order paid, a past-due subscription recovered once nothing else is in dunning. */
async function settlePaid(trx: Executor, deps: Deps, { order, row }: LockedCharge, reference: string, now: Date): Promise<void> {
  const customer = await findCustomerEvenDeleted(trx, order.customer_id);
  const paid = await markOrderPaid(trx, order, { customer, reference }, now);
  if (row.status === "past_due" && !(await hasOtherDunningOrder(trx, row.id, order.id))) await recoverSubscription(trx, row, now);
  // A paid renewal renews the grants (those a recovery just restored included).
  if (order.billing_reason === "subscription_cycle") await cycleSubscriptionBenefits(trx, row.id, now);
  await writeRenewalPaidEmail(trx, deps, { order: paid.row, items: paid.published.items, subscription: row, customer }, now);
}

/** How a charge failed: whether a method was charged at all, and whether the issuer's decline code says a retry is futile. */
interface ChargeFailure {
  attempted: boolean;
  unrecoverable: boolean;
}

/**
 * A failed charge: the next dunning attempt, the subscription past due (and the customer told,
 * with a link to the payment method), or revoked once dunning runs out.
 */
async function settleFailed(trx: Executor, deps: Deps, { order, row }: LockedCharge, failure: ChargeFailure, now: Date): Promise<void> {
  const pastDueAt = row.past_due_at ?? now;
  const failures = await countFailedPayments(trx, order.id, ["subscription_cycle", "retry_dunning"]);
  const step = dunningStep({ failures, pastDueAt, now, hasMethod: failure.attempted, unrecoverable: failure.unrecoverable });
  // An ended subscription's last usage order is retried on the same schedule, then voided; the subscription stays as it is.
  const ended = row.ended_at !== null;
  if (step.revoke && !ended) {
    await endSubscriptionAndTell(trx, deps, row, now);
    return;
  }
  const failed = await updateOrder(trx, order.id, {
    ...(step.revoke ? { status: "void" as const } : {}),
    next_payment_attempt_at: step.nextAttemptAt,
    modified_at: now,
  });
  await publishOrderUpdated(trx, failed, now);
  if (ended || row.status === "past_due") return;
  await markPastDue(trx, row, pastDueAt, now);
  await writeSubscriptionPastDue(trx, deps, { subscription: row, order: failed, pastDueAt, now });
}

/** Records a charge's outcome on the locked order and subscription, with the hosted service's events. */
async function settleCharge(
  trx: Executor,
  deps: Deps,
  locked: LockedCharge,
  outcome: { reference: string } | ChargeFailure,
  now: Date,
): Promise<void> {
  await removeJob(trx, collectJobKey(locked.order.id));
  if ("reference" in outcome) await settlePaid(trx, deps, locked, outcome.reference, now);
  else await settleFailed(trx, deps, locked, outcome, now);
}

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
 * the charge fails as a decline does.
 */
export async function chargeLocked(
  trx: Executor,
  ctx: SubscriptionFlowContext,
  locked: LockedCharge,
  method: PaymentMethodRow,
  trigger: PaymentTrigger,
): Promise<OffSessionChargeOutcome> {
  const { order } = locked;
  const now = ctx.deps.now();
  const amount = dueAmount(order);
  const outcome = await ctx.payments.chargeOffSession({
    attemptId: await nextAttemptKey(trx, order.id),
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

/** The card a customer's charge saved (a new card kept for later charges), stored once; its id, or null when none was saved. */
export async function keepNewCard(trx: Executor, order: OrderRow, method: SavedPaymentMethod | null, now: Date): Promise<string | null> {
  if (!method) return null;
  const kept = await keepSavedMethod(trx, { organizationId: order.organization_id, customerId: order.customer_id, method, now });
  return kept?.id ?? null;
}

/** A customer's charge that took the money: the order paid as any charge's, the subscription moved onto the method that paid. */
export async function settlePaidByCustomer(
  trx: Executor,
  deps: Deps,
  locked: LockedCharge,
  paid: { reference: string; methodId: string | null },
  now: Date,
): Promise<void> {
  await settleCharge(trx, deps, locked, { reference: paid.reference }, now);
  if (paid.methodId) await moveSubscriptionsToMethod(trx, { ids: [locked.row.id] }, paid.methodId, now);
}

/**
 * A charge that waited for the customer (3-D Secure) as the processor now reports it: paid settles
 * the order as any charge that took the money (the card it saved kept, the subscription moved onto
 * it), refused is the customer's failed attempt (not counted toward dunning), still waiting changes
 * nothing. Only the first settlement of the payment applies; true when it paid the order.
 */
export async function settleWaitingPayment(
  trx: Executor,
  ctx: SubscriptionFlowContext,
  locked: LockedCharge,
  waiting: PaymentRow,
  outcome: ChargeOutcome,
): Promise<boolean> {
  const now = ctx.deps.now();
  if (outcome.status === "pending") return false;
  if (outcome.status !== "succeeded") {
    const failure = { status: "failed" as const, methodId: waiting.payment_method_id, declineMessage: outcome.message, now };
    await settlePendingPayment(trx, waiting.id, failure);
    return false;
  }
  const methodId = waiting.payment_method_id ?? (await keepNewCard(trx, locked.order, outcome.method, now));
  const paid = await settlePendingPayment(trx, waiting.id, { status: "succeeded", methodId, declineMessage: null, now });
  if (!paid || locked.order.status !== "pending") return false;
  await settlePaidByCustomer(trx, ctx.deps, locked, { reference: outcome.reference, methodId }, now);
  return true;
}

/**
 * Settles the locked order's charges still waiting for the customer from the processor's answer
 * now; with `giveUp` (another charge of the order follows) one still waiting is canceled first, so
 * it can never complete after the next one. True once the order is paid.
 */
export async function settleWaitingPayments(
  trx: Executor,
  ctx: SubscriptionFlowContext,
  locked: LockedCharge,
  options: { giveUp: boolean },
): Promise<boolean> {
  for (const waiting of await pendingPayments(trx, locked.order.id)) {
    const reference = waiting.processor_reference!;
    let outcome = await ctx.payments.lookupCharge(reference);
    if (outcome.status === "pending" && options.giveUp) outcome = await ctx.payments.cancelCharge(reference);
    if (await settleWaitingPayment(trx, ctx, locked, waiting, outcome)) return true;
  }
  return false;
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
    if (await settleWaitingPayments(trx, ctx, locked, { giveUp: true })) return "paid";
    const method = await methodToCharge(trx, locked.row);
    if (!method) {
      await settleCharge(trx, ctx.deps, locked, { attempted: false, unrecoverable: false }, ctx.deps.now());
      return "refused";
    }
    return (await chargeLocked(trx, ctx, locked, method, trigger)).status === "succeeded" ? "paid" : "refused";
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
