import type { Executor } from "../db/database.ts";
import { addInterval } from "../values/calendar.ts";
import { atClockOffset } from "../values/clock.ts";
import { discountAmount } from "../modules/discounts/discounts.steps.ts";
import { claimDueRetry, updateOrder } from "../modules/orders/orders.steps.ts";
import { findProductBilling } from "../modules/products/products.steps.ts";
import type { OrderRow } from "../modules/orders/orders.table.ts";
import type { PaymentTrigger } from "../modules/payments/payments.table.ts";
import {
  applyPendingUpdate,
  claimDueResume,
  claimDueSubscription,
  closePeriodUsage,
  closePeriodUsageWithPrices,
  organizationsWithDueWork,
  pauseSubscription,
  resumeSubscription,
  subscriptionEvents,
  subscriptionLines,
  updateAndReadSubscription,
  type PriceLine,
} from "../modules/subscriptions/subscriptions.steps.ts";
import type { SubscriptionRow } from "../modules/subscriptions/subscriptions.table.ts";
import { billOrder, billUsage, linesTotal, periodCharge } from "./bill-subscription.ts";
import {
  refreshWaitingPayments,
  retryAsCustomer,
  retryOnNewDefault,
  settleOrderIntent,
  type CustomerMethodChoice,
  type OrderIntentEvent,
  type RetryRefusals,
} from "./collect-customer-payment.ts";
import { collectSubscriptionPayment } from "./collect-subscription-payment.ts";
import { scheduleCollectRecovery } from "./subscription-charge-settlement.ts";
import type { SubscriptionFlowContext } from "./subscription-flow-context.ts";
import type { PaymentMethodRow } from "../modules/payments/payments.table.ts";
import { endSubscriptionAndTell } from "./subscription-notice-email.ts";
import { countRenewal } from "../observability/operation-counters.ts";

// Renewals: at `current_period_end` a subscription moves to its next period with a
// `subscription_cycle` order, charged off-session on its saved method (collect-subscription-payment.ts);
// a failed charge makes it `past_due` and is retried on the dunning schedule until it succeeds or the
// subscription is revoked. Every step reads the injected clock.

/**
 * How many renewals one sweep runs side by side. Claims skip locked rows, so they never collide;
 * several at once keep a sweep moving while the API's requests share the pool, and three leave
 * most of a pool of ten to the requests (bench/README.md, subscription renewals).
 */
const SWEEP_CONCURRENCY = 3;

/** Runs `step` on SWEEP_CONCURRENCY loops until it reports nothing left; returns how many steps did something. */
async function drain(step: () => Promise<boolean>): Promise<number> {
  let done = 0;
  const loop = async () => {
    while (await step()) done += 1;
  };
  await Promise.all(Array.from({ length: SWEEP_CONCURRENCY }, loop));
  return done;
}

/** A due subscription that does not renew (ended, or paused at its period end), its closing usage billed. */
async function closeWithoutRenewal(
  trx: Executor,
  ctx: SubscriptionFlowContext,
  due: SubscriptionRow,
  close: { ends: boolean; usage: PriceLine[] },
  now: Date,
): Promise<OrderRow | null> {
  const closed = close.ends ? await endSubscriptionAndTell(trx, ctx.deps, due, now) : await pauseSubscription(trx, due, now);
  return billUsage(trx, ctx, closed, { lines: close.usage, end: due.current_period_end, now });
}

/**
 * Moves a locked, due subscription to its next period and writes that period's order (billed in
 * advance, with the changes' waiting credits and debits). Its scheduled change applies first.
 * `restart` starts a period now whatever was scheduled for the end of the old one (a change that
 * restarts the cycle), billed as `subscription_update`. Returns the order when it waits for a payment.
 */
export async function cycleSubscription(
  trx: Executor,
  ctx: SubscriptionFlowContext,
  due: SubscriptionRow,
  now: Date,
  options: { restart?: boolean } = {},
): Promise<OrderRow | null> {
  // The closing period's usage, billed in arrears whatever follows it (docs/decisions.md, "Metered billing").
  const { lines: usage, meteredPrices } = await closePeriodUsageWithPrices(trx, due, now);
  const ends = due.cancel_at_period_end || (due.ends_at !== null && due.ends_at <= now);
  // Paused at the period end: no renewal order (only the closing period's usage), benefits revoked until it resumes.
  if (!options.restart && (ends || due.pause_at_period_end)) return closeWithoutRenewal(trx, ctx, due, { ends, usage }, now);
  const row = await applyPendingUpdate(trx, due, now);
  // Leaving a trial re-anchors the periods to the trial's last day, as the hosted service does.
  const leavingTrial = row.status === "trialing";
  const anchorDay = leavingTrial ? row.current_period_end.getUTCDate() : row.anchor_day;
  const start = row.current_period_end;
  const product = await findProductBilling(trx, row.product_id);
  const lines = await subscriptionLines(trx, row, product.name);
  // The subscription's amount is its static price; the order's discount also covers the usage lines (the hosted service's).
  const { kept, subtotal, discounted } = await periodCharge(trx, row, lines, start);
  // The closing usage's metered prices are the new period's, unless a scheduled change just switched them.
  const known = meteredPrices && due.pending_update === null ? { meteredPrices } : {};
  // The update answers the subscription as its events carry it (no read of the row just written).
  const { row: cycled, subscription } = await updateAndReadSubscription(
    trx,
    row.id,
    {
      status: leavingTrial ? "active" : row.status,
      anchor_day: anchorDay,
      current_period_start: start,
      current_period_end: addInterval(start, row.recurring_interval, row.recurring_interval_count, anchorDay),
      discount_id: kept ? row.discount_id : null,
      discount_applied_at: kept?.appliedAt ?? null,
      amount: subtotal - discounted,
      modified_at: now,
    },
    now,
    known,
  );
  // Its events are recorded with the order's, before them, in one statement.
  const events = subscriptionEvents(cycled, subscription, ["subscription.cycled", "subscription.updated"], now);
  return billOrder(
    trx,
    ctx,
    cycled,
    {
      billingReason: options.restart ? "subscription_update" : "subscription_cycle",
      product,
      lines: [...lines, ...usage],
      discount: kept ? discountAmount(kept.discount, subtotal + linesTotal(usage), row.currency) : 0,
      discountId: kept ? row.discount_id : null,
      now,
    },
    events,
  );
}

/**
 * Ends a locked subscription now (a revoke), its open period's usage up to now billed first, as the
 * hosted service settles an open meter period; returns the order when it waits for a payment.
 */
export async function endSubscriptionNow(
  trx: Executor,
  ctx: SubscriptionFlowContext,
  row: SubscriptionRow,
  now: Date,
  cancellation: Parameters<typeof endSubscriptionAndTell>[4],
): Promise<OrderRow | null> {
  const usage = await closePeriodUsage(trx, { ...row, current_period_end: now }, now);
  const ended = await endSubscriptionAndTell(trx, ctx.deps, row, now, cancellation);
  return billUsage(trx, ctx, ended, { lines: usage, end: now, now });
}

/** Resumes a locked, paused subscription: a fresh period from now, charged at once (the hosted service's resume). */
export async function resumeAndRenew(
  trx: Executor,
  ctx: SubscriptionFlowContext,
  row: SubscriptionRow,
  now: Date,
): Promise<OrderRow | null> {
  return cycleSubscription(trx, ctx, await resumeSubscription(trx, row, now), now);
}

/** One claimed row renewed (or resumed) in its own transaction, its order charged after the commit; false when none is due. */
async function renewOne(
  ctx: SubscriptionFlowContext,
  claim: (trx: Executor, now: Date) => Promise<SubscriptionRow | undefined>,
  renew: (trx: Executor, ctx: SubscriptionFlowContext, row: SubscriptionRow, now: Date) => Promise<OrderRow | null>,
): Promise<boolean> {
  const { deps } = ctx;
  try {
    const order = await deps.db.transaction().execute(async (trx) => {
      const row = await claim(trx, deps.now());
      return row ? { pending: await renew(trx, ctx, row, deps.now()) } : null;
    });
    if (!order) return false;
    const charged = order.pending ? await collectSubscriptionPayment(ctx, order.pending.id, "subscription_cycle") : null;
    countRenewal(charged === "refused" ? "payment_failed" : "renewed");
    return true;
  } catch (error) {
    countRenewal("error");
    throw error;
  }
}

/** One dunning retry that is due, claimed and charged; false when none is due. */
async function retryOne(ctx: SubscriptionFlowContext, organizationId: string | undefined): Promise<boolean> {
  const { deps } = ctx;
  const trigger: PaymentTrigger = "retry_dunning";
  const claimed = await deps.db.transaction().execute(async (trx) => {
    const order = await claimDueRetry(trx, deps.now(), organizationId);
    if (!order) return null;
    // Claimed: no other sweep picks it; the job collects it should this run die before settling.
    await updateOrder(trx, order.id, { next_payment_attempt_at: null });
    await scheduleCollectRecovery(trx, order.id, trigger, deps.now());
    return order;
  });
  if (claimed) await collectSubscriptionPayment(ctx, claimed.id, trigger);
  return claimed !== null;
}

/**
 * Renews every subscription whose period has ended, resumes the paused ones whose time has come
 * and retries every dunning charge that is due, oldest first, until none is left, at the clock of
 * the calling context; a subscription several periods behind (the server was down) catches up one
 * period at a time. `organizationId` limits it to one organization.
 */
async function sweepDue(ctx: SubscriptionFlowContext, organizationId: string | undefined): Promise<{ renewed: number; retried: number }> {
  const renewed = await drain(() => renewOne(ctx, (trx, now) => claimDueSubscription(trx, now, organizationId), cycleSubscription));
  const resumed = await drain(() => renewOne(ctx, (trx, now) => claimDueResume(trx, now, organizationId), resumeAndRenew));
  const retried = await drain(() => retryOne(ctx, organizationId));
  return { renewed: renewed + resumed, retried };
}

/**
 * The sweep: one organization at the caller's clock, or every organization with work due at its
 * own clock (an organization whose sandbox test clock is ahead renews at its time).
 */
export async function renewSubscriptions(
  ctx: SubscriptionFlowContext,
  options: { organizationId?: string } = {},
): Promise<{ renewed: number; retried: number }> {
  if (options.organizationId) return sweepDue(ctx, options.organizationId);
  const totals = { renewed: 0, retried: 0 };
  for (const organization of await organizationsWithDueWork(ctx.deps.db, ctx.deps.now())) {
    const done = await atClockOffset(organization.clock_offset_ms, () => sweepDue(ctx, organization.id));
    totals.renewed += done.renewed;
    totals.retried += done.retried;
  }
  return totals;
}

/**
 * The flows bound to the application's context: the tasks' and the test clock's sweep and collect,
 * the portal's retry of an order in dunning (and the one a new default method makes), and the
 * settlement of a retry that waited for the customer (by the processor's event, or a read).
 */
export const subscriptionRenewals = (ctx: SubscriptionFlowContext) => ({
  sweep: (options: { organizationId?: string } = {}) => renewSubscriptions(ctx, options),
  collect: (orderId: string, trigger: PaymentTrigger) => collectSubscriptionPayment(ctx, orderId, trigger),
  retryAsCustomer: (trx: Executor, orderId: string, method: CustomerMethodChoice, refuse: RetryRefusals) =>
    retryAsCustomer(trx, ctx, orderId, method, refuse),
  retryOnNewDefault: (trx: Executor, orderId: string, method: PaymentMethodRow) => retryOnNewDefault(trx, ctx, orderId, method),
  refreshWaitingPayments: (orderId: string) => refreshWaitingPayments(ctx, orderId),
  settleOrderIntent: (orderId: string, event: OrderIntentEvent) => settleOrderIntent(ctx, orderId, event),
});
export type SubscriptionRenewals = ReturnType<typeof subscriptionRenewals>;
