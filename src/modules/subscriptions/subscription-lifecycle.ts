import type { Updateable } from "kysely";
import type { Executor } from "../../db/database.ts";
import type { WebhookEventType } from "../../jobs/webhook-outbox.ts";
import { setSubscriptionBenefits } from "../benefits/benefit-grants.service.ts";
import { updateOrder } from "../orders/orders.repository.ts";
import { publishOrderUpdated } from "../orders/orders.service.ts";
import * as repo from "./subscriptions.repository.ts";
import { publishSubscriptionEvents } from "./subscriptions.service.ts";
import type { CancellationReason, SubscriptionRow, SubscriptionsTable } from "./subscriptions.table.ts";

export type SubscriptionEvent = Extract<WebhookEventType, `subscription.${string}`>;

const BILLABLE = new Set(["trialing", "active", "past_due"]);
/** Billable: a status that renews and can be changed. */
export const isBillable = (row: SubscriptionRow) => BILLABLE.has(row.status);
/** Canceling: set to end at the period end, or already ended. */
export const isCanceling = (row: SubscriptionRow) => row.cancel_at_period_end || row.ends_at !== null || row.ended_at !== null;

/** Who asks for a change: the merchant (API token) or the customer (portal), whose choices are narrower. */
export type Actor = "merchant" | "customer";

/** What one accepted change does: the columns it writes and the events beyond `subscription.updated`. */
export interface Change {
  values: Updateable<SubscriptionsTable>;
  events: SubscriptionEvent[];
  /**
   * What follows the change in its transaction: `renew` closes the period now and renews it (a
   * trial ended), its charge taken after the commit as a renewal's; `restart` starts a new period now
   * and `invoice` bills the waiting prorations now, both charged before the commit (402 rolls back).
   */
  then?: "renew" | "restart" | "invoice";
}

/**
 * Ends a subscription now (a revoke, the end of a canceled period, dunning run out): `canceled`,
 * its grants revoked, its orders still waiting for a payment voided, and the anchor's events
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
    // Only a given reason or comment is stored, as the anchor does.
    ...(cancellation.reason ? { customer_cancellation_reason: cancellation.reason } : {}),
    ...(cancellation.comment ? { customer_cancellation_comment: cancellation.comment } : {}),
    modified_at: now,
  });
  await setSubscriptionBenefits(trx, row.id, false, now);
  const pending = await trx
    .selectFrom("orders")
    .selectAll()
    .where("subscription_id", "=", row.id)
    .where("status", "=", "pending")
    .execute();
  for (const order of pending) {
    const voided = await updateOrder(trx, order.id, { status: "void", next_payment_attempt_at: null, modified_at: now });
    await publishOrderUpdated(trx, voided, now);
  }
  await publishSubscriptionEvents(trx, ended, ["subscription.updated", "subscription.canceled", "subscription.revoked"], now);
  return ended;
}
