import type { Deps } from "../context.ts";
import type { Executor } from "../db/database.ts";
import type { ChargeOutcome, SavedPaymentMethod } from "../adapters/payment-processors/payment-processor.ts";
import type { OrderRow } from "../modules/orders/orders.table.ts";
import { keepSavedMethod, pendingPayments, settlePendingPayment } from "../modules/payments/payments.steps.ts";
import type { PaymentRow } from "../modules/payments/payments.table.ts";
import { moveSubscriptionsToMethod } from "../modules/subscriptions/subscriptions.steps.ts";
import { settleCharge } from "./subscription-charge-settlement.ts";
import type { LockedCharge, SubscriptionFlowContext } from "./subscription-flow-context.ts";

// A subscription order's charges that waited for the customer (3-D Secure), settled from the
// processor's answer, and what a customer's own payment of the order changes.

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
 * it can never complete after the next one. `waiting`, when the caller read them already (with the
 * attempt count, orderAttempts), else read here. True once the order is paid.
 */
export async function settleWaitingPayments(
  trx: Executor,
  ctx: SubscriptionFlowContext,
  locked: LockedCharge,
  options: { giveUp: boolean; waiting?: readonly PaymentRow[] },
): Promise<boolean> {
  for (const waiting of options.waiting ?? (await pendingPayments(trx, locked.order.id))) {
    const reference = waiting.processor_reference!;
    let outcome = await ctx.payments.lookupCharge(reference);
    if (outcome.status === "pending" && options.giveUp) outcome = await ctx.payments.cancelCharge(reference);
    if (await settleWaitingPayment(trx, ctx, locked, waiting, outcome)) return true;
  }
  return false;
}
