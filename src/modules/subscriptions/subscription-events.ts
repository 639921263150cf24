import type { Updateable } from "kysely";
import type { Executor } from "../../db/database.ts";
import type { JobSpec } from "../../jobs/queue.ts";
import { recordWebhookEvents, type WebhookEvent, type WebhookEventType } from "../../jobs/webhook-outbox.ts";
import { customerStateChangedJob } from "../../contracts/customer-state-changes.ts";
import { subscriptionMeters } from "./subscription-meters.ts";
import type { MeteredPrice } from "./subscription-usage.ts";
import { toSubscription } from "./subscriptions.mapper.ts";
import * as repo from "./subscriptions.repository.ts";
import type { Subscription } from "./subscriptions.schemas.ts";
import type { SubscriptionRow, SubscriptionsTable } from "./subscriptions.table.ts";

// The subscription as the API and the `subscription.*` webhooks carry it, and the events of a change.

export type SubscriptionEventType = Extract<WebhookEventType, `subscription.${string}`>;

/** Reads a caller made in its transaction and may hand on: the subscription's metered prices, unchanged since. */
export interface KnownSubscriptionReads {
  meteredPrices?: readonly MeteredPrice[];
}

const present = async (db: Executor, embedded: repo.SubscriptionEmbeddedRow, now: Date, known: KnownSubscriptionReads) =>
  toSubscription(embedded, await subscriptionMeters(db, embedded, now, known.meteredPrices));

/**
 * The full read schema of one subscription, as the API and the `subscription.*` webhooks carry it,
 * its meters computed at `now`.
 */
export async function readSubscription(
  db: Executor,
  row: Pick<SubscriptionRow, "id" | "organization_id">,
  now: Date,
  known: KnownSubscriptionReads = {},
): Promise<Subscription> {
  const embedded = await repo.findSubscriptionEmbedded(db, row.id, { allowed: [row.organization_id] });
  if (!embedded) throw new Error(`subscription ${row.id} vanished while being read`);
  return present(db, embedded, now, known);
}

/**
 * Updates a subscription and answers its row and its read schema (readSubscription's), the update
 * answering the embedded relations: no read of the row just written.
 */
export async function updateAndReadSubscription(
  db: Executor,
  id: string,
  values: Updateable<SubscriptionsTable>,
  now: Date,
  known: KnownSubscriptionReads = {},
): Promise<{ row: SubscriptionRow; subscription: Subscription }> {
  const embedded = await repo.updateSubscriptionEmbedded(db, id, values);
  const { customer, product, discount, prices, ...row } = embedded;
  return { row, subscription: await present(db, embedded, now, known) };
}

/**
 * A change's events, in the order given, carrying `subscription`, with the customer's state job:
 * for a caller that records them with its own events in one statement (recordWebhookEvents).
 * Every subscription change records its events this way or through publishSubscriptionEvents.
 */
export const subscriptionEvents = (
  row: Pick<SubscriptionRow, "organization_id" | "customer_id">,
  subscription: Subscription,
  types: readonly SubscriptionEventType[],
  now: Date,
): { events: WebhookEvent[]; jobs: JobSpec[] } => ({
  events: types.map((type) => ({ organizationId: row.organization_id, type, data: subscription, now })),
  jobs: [customerStateChangedJob(row.customer_id)],
});

/**
 * Records each event, in the order given, with the subscription as it is now; in the caller's transaction.
 * Every subscription change comes through here, so the customer's state event is scheduled here too.
 */
export async function publishSubscriptionEvents(
  db: Executor,
  row: SubscriptionRow,
  types: readonly SubscriptionEventType[],
  now: Date,
): Promise<Subscription> {
  const subscription = await readSubscription(db, row, now);
  // The state event's job rides in the events' statement: one round trip less per change (a renewal's included).
  const { events, jobs } = subscriptionEvents(row, subscription, types, now);
  await recordWebhookEvents(db, events, jobs);
  return subscription;
}
