import type Stripe from "stripe";
import type { Deps } from "../../context.ts";
import type { StripeConfig } from "../../payments-config.ts";
import { readStripeEvent } from "../../adapters/payment-processors/stripe-events.ts";
import { enqueueJob } from "../../jobs/queue.ts";
import { TaskName } from "../../jobs/task-names.ts";
import { realTime } from "../../values/clock.ts";
import { InvalidWebhookSignature, invalidPayload, missingSignature } from "./processor-events.errors.ts";
import { findProcessorEventForUpdate, insertProcessorEvent, markProcessorEventHandled } from "./processor-events.repository.ts";
import { handlerOf, type StripeEventHandlers } from "./stripe-event-handlers.ts";

/**
 * How often an event is tried before it is left failed: graphile-worker's backoff (exp(attempt)
 * seconds, capped) spreads 20 attempts over about a day, long past any request the event may have
 * overtaken (`ProcessorEventTooEarly`).
 */
const MAX_ATTEMPTS = 20;

/**
 * Stripe's webhooks: each event verified on its exact bytes, stored once by its id before it is
 * acted on, and handled by a job in the transaction that marks it handled.
 */
export function createProcessorEventInbox(deps: Deps, stripe: StripeConfig, handlers: StripeEventHandlers) {
  /**
   * Verifies and stores one delivery; the job is enqueued in the same transaction, only when the
   * event is new (a redelivery, or a duplicate racing this one, stores and enqueues nothing).
   * Types this server does not act on are acknowledged and not stored.
   */
  async function receive(rawBody: Buffer, signature: string | undefined): Promise<void> {
    if (!signature) throw missingSignature();
    const reading = readStripeEvent(rawBody, signature, stripe.webhookSecret, realTime(deps.now));
    if (reading.status === "bad_signature") throw new InvalidWebhookSignature();
    if (reading.status === "bad_payload") throw invalidPayload();
    const { event } = reading;
    if (!handlerOf(handlers, event.type)) return;
    await deps.db.transaction().execute(async (trx) => {
      const id = await insertProcessorEvent(trx, {
        source: "stripe",
        externalId: event.id,
        type: event.type,
        payload: rawBody.toString("utf8"),
        receivedAt: realTime(deps.now),
      });
      if (id !== undefined) await enqueueJob(trx, TaskName.processorEventHandle, { eventId: id }, { maxAttempts: MAX_ATTEMPTS });
    });
  }

  /** Acts on a stored event once: under its row lock, skipped when handled, marked handled with the handler's writes. */
  async function handle(eventId: string): Promise<void> {
    await deps.db.transaction().execute(async (trx) => {
      const row = await findProcessorEventForUpdate(trx, eventId);
      if (!row || row.handled_at !== null) return;
      const handler = handlerOf(handlers, row.type);
      // Stored only with a handler; one gone since (a rollback of this server) is a failure to look at, not a silent drop.
      if (!handler) throw new Error(`No handler for the stored ${row.source} event ${row.external_id} (${row.type})`);
      const now = deps.now();
      await handler(trx, row.payload as Stripe.Event, now);
      await markProcessorEventHandled(trx, row.id, now);
    });
  }

  return { receive, handle };
}
export type ProcessorEventInbox = ReturnType<typeof createProcessorEventInbox>;
