import type { Deps } from "../../context.ts";
import type { Executor } from "../../db/database.ts";
import { enqueueJob } from "../../jobs/queue.ts";
import { MAX_ATTEMPTS, nextAttemptAt, parseRetryAfter } from "./webhook-backoff.ts";
import {
  disableEndpoint,
  findDeliveryHeads,
  findEventForFanOutForUpdate,
  findEndpointIdsAwaitingEvent,
  findSubscribedEndpointIds,
  incrementFailureStreak,
  insertDelivery,
  insertEndpointEvents,
  markFannedOut,
  recordSuccess,
  updateFailedEvent,
  type AttemptRecord,
  type DeliveryHead,
} from "./webhook-delivery.repository.ts";
import type { WebhookEventType } from "./webhook-events.outbox.ts";
import { openSecret } from "./webhook-secrets.ts";
import { postWebhook, type DeliveryResult, type OutgoingWebhook } from "./webhook-sender.ts";
import type { UrlPolicy } from "./webhook-url-policy.ts";
import { webhookBody } from "./webhooks.mapper.ts";

export const WEBHOOK_DELIVER_TASK = "webhooks.deliver";
const DELIVERY_PRIORITY = -1;

// Pending events read per query; a failure stops the batch, so reading ahead is harmless.
const HEADS_PER_QUERY = 20;
// A busy endpoint hands its worker slot back now and then, so other endpoints are not starved.
const MAX_DELIVERIES_PER_RUN = 500;
const MAX_RUN_MS = 5_000;

/**
 * One delivery job per endpoint at a time: the job key keeps at most one waiting, the queue name
 * runs them one after the other. The job always sends the endpoint's earliest pending event, so
 * a failing event holds back the later ones of its endpoint, and no other endpoint. Deliveries
 * go before fan-outs, so that a burst of events cannot take every worker slot from them.
 */
export function scheduleDelivery(db: Executor, endpointId: string, delayMs = 0): Promise<void> {
  const key = `${WEBHOOK_DELIVER_TASK}:${endpointId}`;
  // Job times are compared with the database clock, so the delay is applied to the real clock.
  return enqueueJob(db, WEBHOOK_DELIVER_TASK, { endpointId }, {
    jobKey: key,
    queueName: key,
    runAt: new Date(Date.now() + Math.max(0, delayMs)),
    priority: DELIVERY_PRIORITY,
  });
}

export const urlPolicyOf = (deps: Deps): UrlPolicy => ({
  allowInsecureLocalhost: deps.config.webhookAllowInsecureLocalhost,
  allowPrivateNetworks: deps.config.webhookAllowPrivateNetworks,
});

export interface DeliveryOptions {
  /** Jitter source of the backoff; tests pin it. */
  random?: () => number;
  send?: (message: OutgoingWebhook, options: { policy: UrlPolicy; timeoutMs: number }) => Promise<DeliveryResult>;
}

export function createWebhookDeliveryService(deps: Deps, options: DeliveryOptions = {}) {
  const policy = urlPolicyOf(deps);
  const send = options.send ?? postWebhook;
  const random = options.random ?? Math.random;

  /**
   * The outbox job: copies one recorded event to every enabled endpoint subscribed to its type,
   * at the event's recording position, then wakes those endpoints' deliveries.
   */
  async function fanOutEvent(eventId: string): Promise<void> {
    const endpointIds = await deps.db.transaction().execute(async (trx) => {
      const event = await findEventForFanOutForUpdate(trx, eventId);
      if (!event) return [];
      // A repeated run (the worker died after the commit below) repeats only the wake-ups.
      if (event.fanned_out_at !== null) return findEndpointIdsAwaitingEvent(trx, eventId);
      const now = deps.now();
      const subscribed = await findSubscribedEndpointIds(trx, event.organization_id, event.type);
      await insertEndpointEvents(
        trx,
        subscribed.map((endpointId) => ({
          organization_id: event.organization_id,
          endpoint_id: endpointId,
          event_id: event.id,
          type: event.type as WebhookEventType,
          sequence: event.position,
          next_attempt_at: now,
          created_at: now,
        })),
      );
      await markFannedOut(trx, event.id, now);
      return subscribed;
    });
    // Woken after the commit: a wake-up takes the row lock of the endpoint's delivery job, which
    // concurrent fan-outs would otherwise wait on for the whole of each other's transactions.
    for (const endpointId of endpointIds) await scheduleDelivery(deps.db, endpointId);
  }

  /**
   * Sends the head event once. `delivered`: the next may follow; `given-up`: the next may follow
   * but the endpoint's record changed; `halt`: the endpoint must wait (retry, or disabled).
   */
  async function attempt(head: DeliveryHead): Promise<"delivered" | "given-up" | "halt"> {
    const now = deps.now();
    const result = await send(
      {
        url: head.url,
        secret: openSecret(deps.secret, head.secret_sealed),
        messageId: head.endpoint_event_id,
        body: webhookBody(head.payload),
        timestamp: now,
      },
      { policy, timeoutMs: deps.config.webhookTimeoutMs },
    );
    const record: AttemptRecord = {
      organizationId: head.organization_id,
      endpointId: head.endpoint_id,
      endpointEventId: head.endpoint_event_id,
      attempt: head.attempts + 1,
      succeeded: result.httpCode !== null && result.httpCode >= 200 && result.httpCode < 300,
      httpCode: result.httpCode,
      response: result.response,
      durationMs: result.durationMs,
      at: now,
    };
    if (record.succeeded) {
      await recordSuccess(deps.db, record);
      return "delivered";
    }
    return deps.db.transaction().execute(async (trx) => {
      await insertDelivery(trx, record);
      if (result.httpCode === 410) {
        await updateFailedEvent(trx, record, null);
        await disableEndpoint(trx, head.endpoint_id, now);
        return "halt";
      }
      // Once an event has exhausted its schedule the endpoint is known to be down: the events
      // queued behind it get one attempt each instead of three more days each.
      const allowed = head.failed_events_streak > 0 ? 1 : MAX_ATTEMPTS;
      const retryAt = record.attempt < allowed ? nextAttemptAt(record.attempt, now, parseRetryAfter(result.retryAfter, now), random) : null;
      await updateFailedEvent(trx, record, retryAt);
      if (retryAt) {
        await scheduleDelivery(trx, head.endpoint_id, retryAt.getTime() - now.getTime());
        return "halt";
      }
      const streak = await incrementFailureStreak(trx, head.endpoint_id);
      if (streak >= deps.config.webhookMaxConsecutiveFailures) {
        await disableEndpoint(trx, head.endpoint_id, now);
        return "halt";
      }
      return "given-up";
    });
  }

  /** Delivers the endpoint's pending events in order until one must wait. */
  async function deliverEndpoint(endpointId: string): Promise<void> {
    const started = performance.now();
    let sent = 0;
    while (sent < MAX_DELIVERIES_PER_RUN && performance.now() - started < MAX_RUN_MS) {
      const heads = await findDeliveryHeads(deps.db, endpointId, HEADS_PER_QUERY);
      if (heads.length === 0) return;
      for (const head of heads) {
        // An earlier event is still being fanned out: its fan-out wakes this endpoint again.
        if (head.held_from !== null && Number(head.held_from) < head.sequence) return;
        const wait = head.next_attempt_at.getTime() - deps.now().getTime();
        if (wait > 0) return scheduleDelivery(deps.db, endpointId, wait);
        sent += 1;
        const outcome = await attempt(head);
        if (outcome === "halt") return;
        if (outcome === "given-up") break;
      }
    }
    await scheduleDelivery(deps.db, endpointId);
  }

  return { fanOutEvent, deliverEndpoint };
}
export type WebhookDeliveryService = ReturnType<typeof createWebhookDeliveryService>;
