import type { Deps } from "../context.ts";
import type { Executor } from "../db/database.ts";
import { enqueueJobs, removeJob, type JobSpec } from "../jobs/queue.ts";
import { TaskName } from "../jobs/task-names.ts";
import { cycleSubscriptionBenefits } from "../modules/benefits/benefits.steps.ts";
import { findCustomerEvenDeleted } from "../modules/customers/customers.steps.ts";
import { hasOtherDunningOrder, markOrderPaid, publishOrderUpdated, updateOrder } from "../modules/orders/orders.steps.ts";
import { countFailedPayments } from "../modules/payments/payments.steps.ts";
import type { PaymentTrigger } from "../modules/payments/payments.table.ts";
import { dunningStep, markPastDue, recoverSubscription } from "../modules/subscriptions/subscriptions.steps.ts";
import { writeRenewalPaidEmail } from "./order-paid-email.ts";
import { endSubscriptionAndTell } from "./subscription-notice-email.ts";
import { writeSubscriptionPastDue } from "./subscription-past-due-email.ts";
import type { LockedCharge } from "./subscription-flow-context.ts";

// A subscription charge's outcome on its locked order and subscription: paid (the receipt, a
// recovery from past due), or failed (the dunning schedule, past due, revoked at its end); and the
// recovery job that collects an order whose inline charge never settled.

/** How long an inline charge has to settle before the recovery job takes over (as a checkout's settle). */
const COLLECT_RECOVERY_DELAY_MS = 5 * 60 * 1000;
const collectJobKey = (orderId: string) => `${TaskName.subscriptionCollect}:${orderId}`;

/** The `subscription.collect` job that charges the order should the inline charge never settle (a crash). */
export const collectRecoveryJob = (orderId: string, trigger: PaymentTrigger | null, now: Date): JobSpec => ({
  task: TaskName.subscriptionCollect,
  payload: trigger ? { orderId, trigger } : { orderId },
  options: { runAt: new Date(now.getTime() + COLLECT_RECOVERY_DELAY_MS), jobKey: collectJobKey(orderId) },
});

/** Schedules the order's collectRecoveryJob in the caller's transaction. */
export const scheduleCollectRecovery = (db: Executor, orderId: string, trigger: PaymentTrigger | null, now: Date) =>
  enqueueJobs(db, [collectRecoveryJob(orderId, trigger, now)]);

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
export async function settleCharge(
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
