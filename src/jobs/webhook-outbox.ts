import type { Executor } from "../db/database.ts";
import { TaskName } from "./task-names.ts";
import { traceContextFields } from "./job-trace.ts";
import { enqueueJobs, type JobSpec } from "./job-queue.repository.ts";
import { insertWebhookEventsWithFanout } from "./webhook-outbox.repository.ts";
import { orderingKeyOf } from "./webhook-ordering.ts";

/** Every webhook event type this service emits, in one list; the reference's `WebhookEventType` lists more. */
export type WebhookEventType =
  | "checkout.created"
  | "checkout.updated"
  | "checkout.expired"
  | "customer.created"
  | "customer.updated"
  | "customer.deleted"
  | "customer.state_changed"
  | "member.created"
  | "member.updated"
  | "member.deleted"
  | "order.created"
  | "order.updated"
  | "order.paid"
  | "order.refunded"
  | "refund.created"
  | "refund.updated"
  | "subscription.created"
  | "subscription.active"
  | "subscription.updated"
  | "subscription.canceled"
  | "subscription.uncanceled"
  | "subscription.revoked"
  | "subscription.past_due"
  | "subscription.cycled"
  | "subscription.paused"
  | "subscription.resumed"
  | "discount.updated"
  | "discount.deleted"
  | "benefit.updated"
  | "benefit_grant.created"
  | "benefit_grant.updated"
  | "benefit_grant.revoked"
  | "benefit_grant.cycled"
  | "customer_seat.assigned"
  | "customer_seat.claimed"
  | "customer_seat.revoked";

/** A webhook event to record: `data` is the full resource as its read schema gives it. */
export interface WebhookEvent {
  organizationId: string;
  type: WebhookEventType;
  data: unknown;
  now: Date;
}

/**
 * Records webhook events, in the order given, and schedules each one's fan-out to the
 * organization's endpoints, in one statement. Called with the transaction of the change that causes
 * the events, so an event exists if and only if the change committed (outbox semantics); the object
 * each is about orders its delivery (webhook-ordering.ts). `jobs`, other jobs of the same change,
 * are added in the same statement (addJobsExpression: one notification per job key mode). Answers
 * the events' ids.
 */
export async function recordWebhookEvents(db: Executor, events: readonly WebhookEvent[], jobs: readonly JobSpec[] = []): Promise<string[]> {
  if (events.length === 0) {
    await enqueueJobs(db, jobs);
    return [];
  }
  return insertWebhookEventsWithFanout(
    db,
    events.map((event) => ({
      organizationId: event.organizationId,
      type: event.type,
      orderingKey: orderingKeyOf(event.type, event.data),
      payload: JSON.stringify({ type: event.type, timestamp: event.now.toISOString(), data: event.data }),
      now: event.now,
    })),
    { task: TaskName.webhookFanout, payload: traceContextFields() },
    jobs,
  );
}

/** Records one webhook event (see recordWebhookEvents); answers its id. */
export async function recordWebhookEvent(db: Executor, event: WebhookEvent): Promise<string> {
  const [id] = await recordWebhookEvents(db, [event]);
  return id!;
}
