import type { Updateable } from "kysely";
import type { WebhookEventType } from "../../jobs/webhook-outbox.ts";
import type { SubscriptionRow, SubscriptionsTable } from "./subscriptions.table.ts";

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
