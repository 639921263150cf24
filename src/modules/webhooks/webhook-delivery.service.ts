import type { Deps } from "../../context.ts";
import type { Executor } from "../../db/database.ts";
import { enqueueJob } from "../../jobs/queue.ts";
import { MAX_ATTEMPTS, nextAttemptAt, parseRetryAfter } from "./webhook-backoff.ts";
import {
  disableEndpoint,
  findDeliveryHead,
  findEventOrganization,
  findEventsToFanOut,
  findSubscribedEndpoints,
  incrementFailureStreak,
  insertDelivery,
  insertEndpointEvents,
  markFannedOut,
  recordSuccess,
  reserveSequences,
  lockOrganizationFanout,
  updateFailedEvent,
  type AttemptRecord,
  type DeliveryHead,
  type EndpointEventInsert,
} from "./webhook-delivery.repository.ts";
import type { WebhookEventType } from "./webhook-events.outbox.ts";
import { openSecret } from "./webhook-secrets.ts";
import { postWebhook, type DeliveryResult, type OutgoingWebhook } from "./webhook-sender.ts";
import type { UrlPolicy } from "./webhook-url-policy.ts";
import { webhookBody } from "./webhooks.mapper.ts";

export const WEBHOOK_DELIVER_TASK = "webhooks.deliver";

const FANOUT_BATCH = 200;
// A busy endpoint hands its worker slot back now and then, so other endpoints are not starved.
const MAX_DELIVERIES_PER_RUN = 500;
const MAX_RUN_MS = 5_000;

/**
 * One delivery job per endpoint at a time: the job key keeps at most one waiting, the queue name
 * runs them one after the other. The job always sends the endpoint's earliest pending event, so
 * a failing event holds back the later ones of its endpoint, and no other endpoint.
 */
export function scheduleDelivery(db: Executor, endpointId: string, delayMs = 0): Promise<void> {
  const key = `${WEBHOOK_DELIVER_TASK}:${endpointId}`;
  // Job times are compared with the database clock, so the delay is applied to the real clock.
  return enqueueJob(db, WEBHOOK_DELIVER_TASK, { endpointId }, { jobKey: key, queueName: key, runAt: new Date(Date.now() + Math.max(0, delayMs)) });
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

  /** Copies the organization's recorded events to its subscribed endpoints, oldest first. */
  async function fanOut(organizationId: string): Promise<void> {
    for (;;) {
      const more = await deps.db.transaction().execute(async (trx) => {
        await lockOrganizationFanout(trx, organizationId);
        const events = await findEventsToFanOut(trx, organizationId, FANOUT_BATCH);
        if (events.length === 0) return false;
        const endpoints = await findSubscribedEndpoints(trx, organizationId);
        const pairs = events.flatMap((event) =>
          endpoints.filter((endpoint) => endpoint.events.includes(event.type)).map((endpoint) => ({ event, endpointId: endpoint.id })),
        );
        const counts = new Map<string, number>();
        for (const { endpointId } of pairs) counts.set(endpointId, (counts.get(endpointId) ?? 0) + 1);
        const last = await reserveSequences(trx, counts);
        const next = new Map([...counts].map(([id, count]) => [id, (last.get(id) ?? count) - count + 1]));
        const now = deps.now();
        const rows: EndpointEventInsert[] = pairs.map(({ event, endpointId }) => {
          const sequence = next.get(endpointId) ?? 0;
          next.set(endpointId, sequence + 1);
          return {
            organization_id: organizationId,
            endpoint_id: endpointId,
            event_id: event.id,
            type: event.type as WebhookEventType,
            sequence,
            next_attempt_at: now,
            created_at: now,
          };
        });
        await insertEndpointEvents(trx, rows);
        await markFannedOut(trx, events.map((event) => event.id), now);
        for (const endpointId of counts.keys()) await scheduleDelivery(trx, endpointId);
        return events.length === FANOUT_BATCH;
      });
      if (!more) return;
    }
  }

  /** The outbox job: fans out its event's organization (and whatever else of it is pending). */
  async function fanOutEvent(eventId: string): Promise<void> {
    const event = await findEventOrganization(deps.db, eventId);
    if (event) await fanOut(event.organization_id);
  }

  /** Sends the head event once; true when the next event may follow right away. */
  async function attempt(head: DeliveryHead): Promise<boolean> {
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
      return true;
    }
    return deps.db.transaction().execute(async (trx) => {
      await insertDelivery(trx, record);
      if (result.httpCode === 410) {
        await updateFailedEvent(trx, record, null);
        await disableEndpoint(trx, head.endpoint_id, now);
        return false;
      }
      // Once an event has exhausted its schedule the endpoint is known to be down: the events
      // queued behind it get one attempt each instead of three more days each.
      const allowed = head.failed_events_streak > 0 ? 1 : MAX_ATTEMPTS;
      const retryAt = record.attempt < allowed ? nextAttemptAt(record.attempt, now, parseRetryAfter(result.retryAfter, now), random) : null;
      await updateFailedEvent(trx, record, retryAt);
      if (retryAt) {
        await scheduleDelivery(trx, head.endpoint_id, retryAt.getTime() - now.getTime());
        return false;
      }
      const streak = await incrementFailureStreak(trx, head.endpoint_id);
      if (streak >= deps.config.webhookMaxConsecutiveFailures) {
        await disableEndpoint(trx, head.endpoint_id, now);
        return false;
      }
      return true;
    });
  }

  /** Delivers the endpoint's pending events in order until one must wait. */
  async function deliverEndpoint(endpointId: string): Promise<void> {
    const started = performance.now();
    for (let sent = 0; sent < MAX_DELIVERIES_PER_RUN && performance.now() - started < MAX_RUN_MS; sent += 1) {
      const head = await findDeliveryHead(deps.db, endpointId);
      if (!head) return;
      const wait = head.next_attempt_at.getTime() - deps.now().getTime();
      if (wait > 0) return scheduleDelivery(deps.db, endpointId, wait);
      if (!(await attempt(head))) return;
    }
    await scheduleDelivery(deps.db, endpointId);
  }

  return { fanOut, fanOutEvent, deliverEndpoint };
}
export type WebhookDeliveryService = ReturnType<typeof createWebhookDeliveryService>;
