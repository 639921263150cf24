import type { Deps } from "../../context.ts";
import type { Executor } from "../../db/database.ts";
import { enqueueJob } from "../../jobs/queue.ts";
import { TaskName } from "../../jobs/task-names.ts";
import { countWebhookAttempts } from "../../observability/webhook-metrics.ts";
import { nextAttemptAt, parseRetryAfter, setsAside } from "./webhook-backoff.ts";
import {
  disableEndpoint,
  findDeliveryHeads,
  fanOutBatch,
  findEndpointIdsWithPendingEvents,
  insertDelivery,
  markEndpointFailing,
  nextDueAt,
  recordSuccesses,
  updateFailedEvent,
  type AttemptRecord,
  type DeliveryHead,
} from "./webhook-delivery.repository.ts";
import { writeWebhookEndpointDisabledEmail } from "../emails/seller-notices.steps.ts";
import { findOrganization } from "../organizations/organizations.steps.ts";
import { signingSecrets } from "./webhook-secrets.ts";
import { postWebhook } from "./webhook-sender.ts";
import { urlPolicyOf, type UrlPolicy } from "../../http/outbound-url-policy.ts";
import { webhookBody } from "./webhooks.mapper.ts";

const DELIVERY_PRIORITY = -1;

const FANOUT_BATCH = 100;
// Events ready to send read per query (at most one per object, besides redeliveries and set-aside ones).
const HEADS_PER_QUERY = 100;
// Requests in flight at once to one endpoint: events about different objects do not wait for each other.
const PARALLEL_SENDS = 8;
// A busy endpoint hands its worker slot back now and then, so other endpoints are not starved.
const MAX_RUN_MS = 2_000;

/**
 * One delivery job per endpoint at a time: the job key keeps at most one waiting, the queue name
 * runs them one after the other. A run sends, concurrently, the endpoint's events that nothing
 * holds back: for each object, its earliest pending event (see `findDeliveryHeads`), so a failing
 * event holds back the later ones of its object only, and no other endpoint's: each endpoint has
 * its own queue, and a run hands its worker slot back after `MAX_RUN_MS`. Deliveries go before
 * fan-outs, so that a burst of events cannot take every worker slot from them. The job key's
 * `replace` mode moves a waiting job to the new time, later too: the end of a run looks again
 * (`scheduleNextRun`) so as not to lose a wake-up it moved.
 */
export function scheduleDelivery(db: Executor, endpointId: string, delayMs = 0): Promise<void> {
  const key = `${TaskName.webhookDeliver}:${endpointId}`;
  // Job times are compared with the database clock, so the delay is applied to the real clock.
  return enqueueJob(
    db,
    TaskName.webhookDeliver,
    { endpointId },
    {
      jobKey: key,
      queueName: key,
      runAt: new Date(Date.now() + Math.max(0, delayMs)),
      priority: DELIVERY_PRIORITY,
    },
  );
}

export interface DeliveryOptions {
  /** Jitter source of the backoff; tests pin it. */
  random?: () => number;
}

/** What the delivery operations share: the outside world, where webhooks may go, and the backoff's jitter. */
interface DeliveryContext {
  deps: Deps;
  policy: UrlPolicy;
  random: () => number;
}

// After the commit: a wake-up takes the row lock of the endpoint's delivery job, which
// concurrent fan-outs would otherwise wait on for the whole of each other's transactions.
async function wake(deps: Deps, endpointIds: readonly string[]): Promise<void> {
  for (const endpointId of endpointIds) await scheduleDelivery(deps.db, endpointId);
}

/**
 * The outbox job of one event: fans out its organization's pending events, oldest first, and
 * wakes the endpoints that received some. Its own event may already have gone out in another
 * job's batch. On a retry (the worker may have died between a commit and its wake-ups) every
 * endpoint of the organization with something pending is woken.
 */
async function fanOutEvent(deps: Deps, eventId: string, attempt = 1): Promise<void> {
  for (;;) {
    const result = await fanOutBatch(deps.db, eventId, FANOUT_BATCH, deps.now());
    if (!result) return;
    if (result.alreadyFannedOut && attempt > 1) await wake(deps, await findEndpointIdsWithPendingEvents(deps.db, result.organizationId));
    await wake(deps, result.endpointIds);
    if (result.count < FANOUT_BATCH) return;
  }
}

/** Sends the head event once and describes the attempt. */
async function send({ deps, policy }: DeliveryContext, head: DeliveryHead, secrets: readonly string[]): Promise<Omit<Attempt, "head">> {
  const now = deps.now();
  const result = await postWebhook(
    { url: head.url, secrets, messageId: head.endpoint_event_id, body: webhookBody(head.payload), timestamp: now },
    { policy, timeoutMs: deps.config.webhookTimeoutMs },
  );
  return {
    record: {
      organizationId: head.organization_id,
      endpointId: head.endpoint_id,
      endpointEventId: head.endpoint_event_id,
      attempt: head.attempts + 1,
      succeeded: result.httpCode !== null && result.httpCode >= 200 && result.httpCode < 300,
      httpCode: result.httpCode,
      response: result.response,
      durationMs: result.durationMs,
      at: now,
    },
    retryAfter: result.retryAfter,
  };
}

/**
 * What a failed attempt leads to: the event waiting for its retry (still holding back its
 * object's later events, or set aside), given up, or the endpoint disabled by it (or found
 * disabled by someone else).
 */
type FailureOutcome = "wait" | "set-aside" | "given-up" | "disabled";

/**
 * Disables the endpoint in the transaction of the failure that decided it: every attempt has
 * failed for `WEBHOOK_DISABLE_AFTER`, or the receiver answered `410 Gone`. The failed event and
 * those behind it stay pending. True only for the failure that switched it off (a concurrent one,
 * or a disable by hand, finds it off). The seller's "webhook endpoint disabled" email is written on
 * `trx`: once, and only if the disable commits.
 */
async function disableFailingEndpoint(deps: Deps, trx: Executor, head: DeliveryHead, now: Date): Promise<boolean> {
  if (!(await disableEndpoint(trx, head.endpoint_id, now))) return false;
  const organization = await findOrganization(trx, head.organization_id, null);
  if (organization)
    await writeWebhookEndpointDisabledEmail(trx, deps, { organization, endpoint: { id: head.endpoint_id, url: head.url }, now });
  return true;
}

/** Records a failed attempt and decides what follows it; the end of the run schedules the retry (`retryAt`). */
function recordFailure(
  { deps, random }: DeliveryContext,
  head: DeliveryHead,
  record: AttemptRecord,
  retryAfter: string | null,
): Promise<{ outcome: FailureOutcome; retryAt: Date | null }> {
  const now = record.at;
  return deps.db.transaction().execute(async (trx) => {
    await insertDelivery(trx, record);
    const failingSince = await markEndpointFailing(trx, head.endpoint_id, now);
    if (record.httpCode === 410 || now.getTime() - failingSince.getTime() >= deps.config.webhookDisableAfterMs) {
      // Due at once, for whenever the endpoint is enabled again (which restarts its schedule).
      await updateFailedEvent(trx, record, now);
      return { outcome: (await disableFailingEndpoint(deps, trx, head, now)) ? "disabled" : "wait", retryAt: null };
    }
    const retryAt = nextAttemptAt(record.attempt, now, parseRetryAfter(retryAfter, now), random);
    const setAside = retryAt !== null && head.holds_order && setsAside(record.attempt, head.first_failed_at, failingSince);
    await updateFailedEvent(trx, record, retryAt, setAside);
    return { outcome: retryAt === null ? "given-up" : setAside ? "set-aside" : "wait", retryAt };
  });
}

interface Attempt {
  head: DeliveryHead;
  record: AttemptRecord;
  retryAfter: string | null;
}

/** No answer, or a gateway's in its stead: the receiver is down rather than refusing one event. */
const unreachable = (record: AttemptRecord) => record.httpCode === null || [502, 503, 504].includes(record.httpCode);

/**
 * Sends the heads, `PARALLEL_SENDS` at a time, starting none once the run's time is up, nor once
 * `PARALLEL_SENDS` attempts in a row found the receiver unreachable (`down`): a receiver that is
 * down gets that many requests per retry (plus those of lanes already past their check, fewer
 * than twice as many in all), not one per object with something pending.
 */
async function sendHeads(
  context: DeliveryContext,
  heads: readonly DeliveryHead[],
  withinBudget: () => boolean,
): Promise<{ attempts: Attempt[]; down: boolean }> {
  // Read with the batch: an attempt is signed with what was current (or overlapping) when it was read.
  const secrets = signingSecrets(context.deps.secret, heads[0]!, context.deps.now());
  const attempts: Attempt[] = [];
  let next = 0;
  let unreachableInARow = 0;
  const down = () => unreachableInARow >= PARALLEL_SENDS;
  const lane = async () => {
    while (next < heads.length && withinBudget() && !down()) {
      const head = heads[next++]!;
      const attempt = { head, ...(await send(context, head, secrets)) };
      unreachableInARow = unreachable(attempt.record) ? unreachableInARow + 1 : 0;
      attempts.push(attempt);
    }
  };
  await Promise.all(Array.from({ length: Math.min(PARALLEL_SENDS, heads.length) }, lane));
  return { attempts, down: down() };
}

/**
 * After a run: the next one when the earliest event held back by nothing is due. A wake-up
 * (a fan-out committed meanwhile) that this moved later is taken back by looking again.
 */
async function scheduleNextRun(deps: Deps, endpointId: string): Promise<void> {
  const due = await nextDueAt(deps.db, endpointId);
  if (due === null) return;
  await scheduleDelivery(deps.db, endpointId, due.getTime() - deps.now().getTime());
  const again = await nextDueAt(deps.db, endpointId);
  if (again !== null && again.getTime() < due.getTime())
    await scheduleDelivery(deps.db, endpointId, again.getTime() - deps.now().getTime());
}

/**
 * Delivers the endpoint's events that nothing holds back until none is due. Successes are
 * written in one statement per batch: a crash in between re-sends them (at least once, as the
 * Standard Webhooks contract allows; receivers deduplicate on `webhook-id`). True when this run
 * disabled the endpoint.
 */
async function deliverEndpoint(context: DeliveryContext, endpointId: string): Promise<boolean> {
  const { deps } = context;
  const started = performance.now();
  // Bounded by time too, so that a run of slow receivers cannot hold a worker slot (or a
  // graceful shutdown) for long, nor keep sending from a batch read before a disable.
  const withinBudget = () => performance.now() - started < MAX_RUN_MS;
  while (withinBudget()) {
    const heads = await findDeliveryHeads(deps.db, endpointId, deps.now(), HEADS_PER_QUERY);
    if (heads.length === 0) {
      await scheduleNextRun(deps, endpointId);
      return false;
    }
    const { attempts, down } = await sendHeads(context, heads, withinBudget);
    const succeeded = attempts.filter((attempt) => attempt.record.succeeded).map((attempt) => attempt.record);
    await recordSuccesses(deps.db, succeeded);
    const failures: { outcome: FailureOutcome; retryAt: Date | null }[] = [];
    for (const { head, record, retryAfter } of attempts) {
      if (!record.succeeded) failures.push(await recordFailure(context, head, record, retryAfter));
    }
    const outcomes = failures.map((failure) => failure.outcome);
    countWebhookAttempts({
      succeeded: succeeded.length,
      failed: outcomes.length,
      givenUp: outcomes.filter((outcome) => outcome === "given-up").length,
      setAside: outcomes.filter((outcome) => outcome === "set-aside").length,
    });
    if (outcomes.includes("disabled")) return true;
    if (down) {
      // The events not tried wait with the earliest retry: the whole endpoint backs off.
      const earliest = Math.min(...failures.flatMap((failure) => (failure.retryAt ? [failure.retryAt.getTime()] : [])));
      if (Number.isFinite(earliest)) await scheduleDelivery(deps.db, endpointId, earliest - deps.now().getTime());
      else await scheduleNextRun(deps, endpointId);
      return false;
    }
  }
  await scheduleDelivery(deps.db, endpointId);
  return false;
}

export function createWebhookDeliveryService(deps: Deps, options: DeliveryOptions = {}) {
  const context: DeliveryContext = { deps, policy: urlPolicyOf(deps.config), random: options.random ?? Math.random };
  return {
    fanOutEvent: (eventId: string, attempt?: number) => fanOutEvent(deps, eventId, attempt),
    deliverEndpoint: (endpointId: string) => deliverEndpoint(context, endpointId),
  };
}
export type WebhookDeliveryService = ReturnType<typeof createWebhookDeliveryService>;
