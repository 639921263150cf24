import type { Executor } from "../../db/database.ts";
import { addInterval } from "../../values/calendar.ts";
import type { Metadata, RecurringInterval } from "../../schema/primitives.ts";
import { setSubscriptionBenefits } from "../benefits/benefits.steps.ts";
import { revokeSubscriptionSeats } from "../customer-seats/customer-seats.steps.ts";
import { pendingOrdersOf, publishOrderUpdated, updateOrder } from "../orders/orders.steps.ts";
import { discountExpired, dunningStep } from "./subscription-billing.ts";
import { markEntriesBilled, unbilledEntries } from "./subscription-billing-entries.repository.ts";
import { applyPendingUpdate, subscriptionLines } from "./subscription-change.apply.ts";
import { billableEntries, type PriceLine } from "./subscription-proration.ts";
import {
  claimDueResume,
  claimDueSubscription,
  lockOpenSubscriptionsOfCustomer,
  organizationsWithDueWork,
} from "./subscription-renewals.repository.ts";
import { publishSubscriptionEvents } from "./subscription-events.ts";
import { closePeriodUsage, closePeriodUsageWithPrices } from "./subscription-usage.ts";
import * as repo from "./subscriptions.repository.ts";
import type { CancellationReason, SubscriptionRow } from "./subscriptions.table.ts";

// The subscription operations other modules and flows run inside their own transaction.

export {
  findSubscription,
  findSubscriptionForUpdate,
  findSubscriptionOfOrderForUpdate,
  updateSubscription,
  type SubscriptionVisibility,
} from "./subscriptions.repository.ts";
export {
  publishSubscriptionEvents,
  readSubscription,
  subscriptionEvents,
  updateAndReadSubscription,
  type SubscriptionEventType,
} from "./subscription-events.ts";
export { isBillable, type Actor, type Change, type SubscriptionEvent } from "./subscription-lifecycle.ts";
export { requestChange } from "./subscription-change.request.ts";
export { moveSubscriptionsToMethod } from "./subscription-payment-methods.repository.ts";
export { organizationsWithRemindersDue, subscriptionsToRemind, type ReminderKind } from "./subscription-reminders.repository.ts";
export {
  applyPendingUpdate,
  billableEntries,
  claimDueResume,
  claimDueSubscription,
  closePeriodUsage,
  closePeriodUsageWithPrices,
  discountExpired,
  dunningStep,
  lockOpenSubscriptionsOfCustomer,
  markEntriesBilled,
  organizationsWithDueWork,
  subscriptionLines,
  unbilledEntries,
  type PriceLine,
};

export interface NewSubscription {
  organizationId: string;
  customerId: string;
  product: { id: string; recurringInterval: RecurringInterval; recurringIntervalCount: number };
  checkoutId: string | null;
  /** Every price the subscription bills, in display order, with what it bills per period (null: metered). */
  prices: { id: string; amount: number | null }[];
  currency: string;
  taxBehavior: "inclusive" | "exclusive" | null;
  /** What a period bills before tax: the prices less the discount. */
  amount: number;
  discountId: string | null;
  seats: number | null;
  /** A trial's end; the first period runs until then and nothing is charged before it. */
  trialEnd: Date | null;
  metadata: Metadata;
  customFieldData: Record<string, string | number | boolean | null>;
  /** The saved method renewals charge. */
  paymentMethodId: string | null;
  now: Date;
}

/**
 * Starts a subscription: `trialing` until `trialEnd`, else `active` for a first period of the
 * product's interval, anchored to today's day of month. Runs in the caller's transaction (a
 * checkout's completion), which also writes the first order.
 */
export async function startSubscription(db: Executor, input: NewSubscription): Promise<SubscriptionRow> {
  const { now, trialEnd } = input;
  const row = await repo.insertSubscription(db, {
    created_at: now,
    modified_at: null,
    organization_id: input.organizationId,
    customer_id: input.customerId,
    product_id: input.product.id,
    checkout_id: input.checkoutId,
    discount_id: input.discountId,
    // A discount's duration counts from the first billed period: after the trial, when there is one.
    discount_applied_at: input.discountId && !trialEnd ? now : null,
    status: trialEnd ? "trialing" : "active",
    amount: input.amount,
    currency: input.currency,
    tax_behavior: input.taxBehavior,
    recurring_interval: input.product.recurringInterval,
    recurring_interval_count: input.product.recurringIntervalCount,
    anchor_day: now.getUTCDate(),
    current_period_start: now,
    current_period_end: trialEnd ?? addInterval(now, input.product.recurringInterval, input.product.recurringIntervalCount),
    trial_start: trialEnd ? now : null,
    trial_end: trialEnd,
    canceled_at: null,
    started_at: now,
    ends_at: null,
    ended_at: null,
    past_due_at: null,
    paused_at: null,
    resumes_at: null,
    seats: input.seats,
    payment_method_id: input.paymentMethodId,
    customer_cancellation_reason: null,
    customer_cancellation_comment: null,
    metadata: JSON.stringify(input.metadata),
    custom_field_data: JSON.stringify(input.customFieldData),
  });
  await repo.insertSubscriptionPrices(
    db,
    input.prices.map((price, position) => ({
      subscription_id: row.id,
      product_price_id: price.id,
      organization_id: input.organizationId,
      amount: price.amount,
      position,
    })),
  );
  return row;
}

/**
 * Ends a subscription now (a revoke, the end of a canceled period, dunning run out): `canceled`,
 * its grants revoked, its orders still waiting for a payment voided, and the hosted service's events
 * (`updated`, `canceled`, `revoked`). In the caller's transaction, on a locked row.
 */
export async function endSubscription(
  trx: Executor,
  row: SubscriptionRow,
  now: Date,
  cancellation: { reason?: CancellationReason | null; comment?: string | null } = {},
): Promise<SubscriptionRow> {
  const ended = await repo.updateSubscription(trx, row.id, {
    status: "canceled",
    canceled_at: row.canceled_at ?? now,
    ends_at: row.ends_at !== null && row.ends_at <= now ? row.ends_at : now,
    ended_at: now,
    pause_at_period_end: false,
    // Only a given reason or comment is stored, as the hosted service does.
    ...(cancellation.reason ? { customer_cancellation_reason: cancellation.reason } : {}),
    ...(cancellation.comment ? { customer_cancellation_comment: cancellation.comment } : {}),
    modified_at: now,
  });
  await setSubscriptionBenefits(trx, row.id, false, now);
  await revokeSubscriptionSeats(trx, row.id, now);
  for (const order of await pendingOrdersOf(trx, row.id)) {
    const voided = await updateOrder(trx, order.id, { status: "void", next_payment_attempt_at: null, modified_at: now });
    await publishOrderUpdated(trx, voided, now);
  }
  await publishSubscriptionEvents(trx, ended, ["subscription.updated", "subscription.canceled", "subscription.revoked"], now);
  return ended;
}

/** Paused at the period end: benefits revoked until it resumes. On the locked row. */
export async function pauseSubscription(trx: Executor, row: SubscriptionRow, now: Date): Promise<SubscriptionRow> {
  const paused = await repo.updateSubscription(trx, row.id, {
    status: "paused",
    paused_at: now,
    pause_at_period_end: false,
    modified_at: now,
  });
  await setSubscriptionBenefits(trx, row.id, false, now);
  await revokeSubscriptionSeats(trx, row.id, now);
  await publishSubscriptionEvents(trx, paused, ["subscription.updated", "subscription.paused"], now);
  return paused;
}

/** A paused subscription active again, its period ending now (the caller renews it at once). On the locked row. */
export async function resumeSubscription(trx: Executor, row: SubscriptionRow, now: Date): Promise<SubscriptionRow> {
  const resumed = await repo.updateSubscription(trx, row.id, {
    status: "active",
    paused_at: null,
    resumes_at: null,
    anchor_day: now.getUTCDate(),
    current_period_end: now,
    modified_at: now,
  });
  await setSubscriptionBenefits(trx, row.id, true, now);
  await publishSubscriptionEvents(trx, resumed, ["subscription.updated", "subscription.resumed"], now);
  return resumed;
}

/** A failed charge: `past_due` since `pastDueAt`. The hosted service's default grace period is none: benefits go at the first failure. */
export async function markPastDue(trx: Executor, row: SubscriptionRow, pastDueAt: Date, now: Date): Promise<void> {
  const pastDue = await repo.updateSubscription(trx, row.id, { status: "past_due", past_due_at: pastDueAt, modified_at: now });
  await setSubscriptionBenefits(trx, row.id, false, now);
  await revokeSubscriptionSeats(trx, row.id, now);
  await publishSubscriptionEvents(trx, pastDue, ["subscription.updated", "subscription.past_due"], now);
}

/** A past-due subscription whose last dunning order was paid: `active` again, its benefits restored. */
export async function recoverSubscription(trx: Executor, row: SubscriptionRow, now: Date): Promise<void> {
  const recovered = await repo.updateSubscription(trx, row.id, { status: "active", past_due_at: null, modified_at: now });
  await setSubscriptionBenefits(trx, row.id, true, now);
  await publishSubscriptionEvents(trx, recovered, ["subscription.updated", "subscription.active"], now);
}
export { subscriptionMeters } from "./subscription-meters.ts";
export { dunningOrdersOfCustomer, subscriptionsNeedingMethod } from "./subscription-payment-methods.repository.ts";
export { changeDefaultMethod, retirePaymentMethod, type LockedCustomer } from "./payment-method-removal.ts";
export { subscriptionsByIds } from "./subscriptions.repository.ts";
export { pageSubscriptions } from "./subscription-pages.ts";
export {
  findSubscriptionEmbedded,
  frozenPrices,
  type SubscriptionEmbeddedRow,
  type SubscriptionFilter,
} from "./subscriptions.repository.ts";

// Subscriptions inside other modules' statements: the test clock's next due time, what orders,
// benefit grants and customers read of their subscriptions (handed to them by services.ts), and a
// customer's subscriptions for customer-state.
export {
  buyerProductIdOfSubscription,
  hasBillableSubscription,
  nextSubscriptionDueAt,
  productIdOfSubscription,
  subscriptionCheckouts,
  subscriptionFromCheckoutIn,
  subscriptionJson,
  subscriptionIdsOfProduct,
  subscriptionsOfCustomer,
} from "./subscription-expressions.repository.ts";
