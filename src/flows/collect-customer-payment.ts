import type { Executor } from "../db/database.ts";
import type { ProcessorCustomer } from "../adapters/payment-processors/payment-processor.ts";
import { findCustomerEvenDeleted, rememberProcessorCustomer } from "../modules/customers/customers.steps.ts";
import { dueAmount } from "../modules/orders/orders.steps.ts";
import type { OrderRow } from "../modules/orders/orders.table.ts";
import {
  hasPaymentOfReference,
  nextAttemptKey,
  pendingPayments,
  recordDeclinedPayment,
  recordPayment,
  recordPendingPayment,
  tryLockOrderPayment,
} from "../modules/payments/payments.steps.ts";
import type { PaymentMethodRow, PaymentTrigger } from "../modules/payments/payments.table.ts";
import { chargeLocked, collectSubscriptionPayment, inDunning, lockForCharge } from "./collect-subscription-payment.ts";
import type { LockedCharge, SubscriptionFlowContext } from "./subscription-flow-context.ts";
import { keepNewCard, settlePaidByCustomer, settleWaitingPayment, settleWaitingPayments } from "./subscription-waiting-payments.ts";

// A customer paying an order dunning is chasing, themselves: the portal's retry (on-session, so the
// card may ask for 3-D Secure), the retry a new default method triggers, and the settlement of a
// retry that waited for the customer, by the processor's event or a read of where it stands.

/** A card the customer enters for this payment: the processor's confirmation token, for the buyer as the processor knows them. */
export interface NewCard {
  confirmationToken: string;
  customer: ProcessorCustomer;
}

/** The method a customer's retry charges, chosen once the order is locked: a saved one or a new card. */
export type CustomerMethodChoice = (locked: OrderRow) => Promise<PaymentMethodRow | NewCard>;
/** The errors a customer's own retry answers with: another request pays the order, or its dunning ended. */
export type RetryRefusals = { busy: () => Error; ended: () => Error };

/**
 * The retry's outcome for the customer: paid; waiting for their 3-D Secure step (the page finishes
 * it with `clientSecret`); still processing at the processor (its event settles it); or refused.
 */
export type CustomerChargeOutcome =
  | { status: "succeeded" }
  | { status: "requires_action"; clientSecret: string }
  | { status: "pending" }
  | { status: "failed"; message: string };

/**
 * Takes the order for a customer's payment: the order's payment lock (tried: a second request is
 * refused rather than queued), then the subscription's and the order's row locks, so it never
 * overlaps a dunning charge or a revoke. Null when another request holds it or dunning ended meanwhile.
 */
async function lockCustomerPayment(trx: Executor, orderId: string, refuse: RetryRefusals | null): Promise<LockedCharge | null> {
  if (!(await tryLockOrderPayment(trx, orderId))) {
    if (refuse) throw refuse.busy();
    return null;
  }
  const locked = await lockForCharge(trx, orderId);
  if (!locked || !inDunning(locked.order)) {
    if (refuse) throw refuse.ended();
    return null;
  }
  return locked;
}

/**
 * Charges the locked order with the customer present: a `retry_customer` PaymentIntent without
 * `off_session`, keyed by the attempt. Paid settles the order (a new card kept, the subscription
 * moved to the method that paid); waiting records a pending attempt under the intent, settled
 * later; refused records a failed attempt that dunning does not count.
 */
async function chargeAsCustomer(
  trx: Executor,
  ctx: SubscriptionFlowContext,
  locked: LockedCharge,
  choice: PaymentMethodRow | NewCard,
): Promise<CustomerChargeOutcome> {
  const { order } = locked;
  const now = ctx.deps.now();
  const savedId = "id" in choice ? choice.id : null;
  const method =
    "id" in choice ? { reference: choice.processor_reference, customerReference: choice.processor_customer_reference } : choice;
  const trigger: PaymentTrigger = "retry_customer";
  const outcome = await ctx.payments.chargeOnSession({
    attemptId: await nextAttemptKey(trx, order.id),
    organizationId: order.organization_id,
    orderId: order.id,
    trigger,
    amount: dueAmount(order),
    currency: order.currency,
    method,
  });
  // A processor customer the charge made for the buyer is kept for their next payments.
  if (outcome.status === "succeeded" || outcome.status === "pending")
    await rememberProcessorCustomer(trx, await findCustomerEvenDeleted(trx, order.customer_id), outcome.customerReference);
  const attempt = {
    organizationId: order.organization_id,
    customerId: order.customer_id,
    orderId: order.id,
    methodId: savedId ?? (outcome.status === "succeeded" ? await keepNewCard(trx, order, outcome.method, now) : null),
    trigger,
    amount: dueAmount(order),
    currency: order.currency,
    now,
  };
  if (outcome.status === "succeeded") {
    await recordPayment(trx, { ...attempt, reference: outcome.reference });
    await settlePaidByCustomer(trx, ctx.deps, locked, { reference: outcome.reference, methodId: attempt.methodId }, now);
    return { status: "succeeded" };
  }
  if (outcome.status === "pending") {
    await recordPendingPayment(trx, { ...attempt, reference: outcome.reference });
    return outcome.clientSecret ? { status: "requires_action", clientSecret: outcome.clientSecret } : { status: "pending" };
  }
  await recordDeclinedPayment(trx, { ...attempt, declineMessage: outcome.message, declineReason: null });
  return { status: "failed", message: outcome.message };
}

/**
 * The portal's retry of an order in dunning, inside the caller's transaction. An earlier retry
 * still waiting for its 3-D Secure step is settled first: paid meanwhile answers `succeeded`
 * without a new charge; still waiting, it is canceled, so the customer is never charged twice.
 */
export async function retryAsCustomer(
  trx: Executor,
  ctx: SubscriptionFlowContext,
  orderId: string,
  choose: CustomerMethodChoice,
  refuse: RetryRefusals,
): Promise<CustomerChargeOutcome> {
  // With refusals to throw, the lock is taken or the request refused: never null.
  const locked = (await lockCustomerPayment(trx, orderId, refuse))!;
  const choice = await choose(locked.order);
  if (await settleWaitingPayments(trx, ctx, locked, { giveUp: true })) return { status: "succeeded" };
  return chargeAsCustomer(trx, ctx, locked, choice);
}

/**
 * A new default method retries the order at once, off-session (the customer set a card up, and
 * no page waits to finish a 3-D Secure step); an order another request holds is left to it.
 */
export async function retryOnNewDefault(trx: Executor, ctx: SubscriptionFlowContext, orderId: string, method: PaymentMethodRow) {
  const locked = await lockCustomerPayment(trx, orderId, null);
  if (!locked || (await settleWaitingPayments(trx, ctx, locked, { giveUp: true }))) return;
  await chargeLocked(trx, ctx, locked, method, "retry_customer");
}

/** Where the order's waiting retries stand now, asked of the processor (the portal's payment status polls this). */
export async function refreshWaitingPayments(ctx: SubscriptionFlowContext, orderId: string): Promise<void> {
  await ctx.deps.db.transaction().execute(async (trx) => {
    const locked = await lockForCharge(trx, orderId);
    if (locked) await settleWaitingPayments(trx, ctx, locked, { giveUp: false });
  });
}

/** What the processor's event says of an order's intent. */
export interface OrderIntentEvent {
  reference: string;
  trigger: PaymentTrigger;
  succeeded: boolean;
}

/**
 * The attempt an event's intent is about, waiting to be settled: the customer's retry that waited
 * for 3-D Secure; or, for a customer's charge that succeeded while the order still waits and no
 * attempt carries its reference, one whose request died between the processor's answer and its
 * commit (the request, had it lived, committed its row before this lock was granted), recorded now
 * to be settled from the processor's answer.
 */
async function attemptOfIntent(trx: Executor, ctx: SubscriptionFlowContext, locked: LockedCharge, event: OrderIntentEvent) {
  const { order } = locked;
  const waiting = (await pendingPayments(trx, order.id)).find((payment) => payment.processor_reference === event.reference);
  if (waiting) return waiting;
  const lost =
    event.trigger === "retry_customer" &&
    event.succeeded &&
    order.status === "pending" &&
    !(await hasPaymentOfReference(trx, order.id, event.reference));
  if (!lost) return undefined;
  return recordPendingPayment(trx, {
    organizationId: order.organization_id,
    customerId: order.customer_id,
    orderId: order.id,
    methodId: null,
    trigger: event.trigger,
    amount: dueAmount(order),
    currency: order.currency,
    reference: event.reference,
    now: ctx.deps.now(),
  });
}

/**
 * The processor's event about an intent of an order: a customer's charge that waited (or whose
 * request died) is settled from the processor's answer about it (as a read of its status would;
 * whichever comes first settles it, the other finds it settled); otherwise a success collects the
 * order should a crash have left it pending (idempotent per attempt).
 */
export async function settleOrderIntent(ctx: SubscriptionFlowContext, orderId: string, event: OrderIntentEvent): Promise<void> {
  const settled = await ctx.deps.db.transaction().execute(async (trx) => {
    const locked = await lockForCharge(trx, orderId);
    const attempt = locked && (await attemptOfIntent(trx, ctx, locked, event));
    if (!locked || !attempt) return false;
    await settleWaitingPayment(trx, ctx, locked, attempt, await ctx.payments.lookupCharge(event.reference));
    return true;
  });
  if (!settled && event.succeeded) await collectSubscriptionPayment(ctx, orderId, event.trigger);
}
