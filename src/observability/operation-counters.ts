import { Counter } from "prom-client";

/**
 * The seam through which features and flows count what happens to them (an email sent, events
 * ingested, a renewal, a checkout confirm), without knowing about Prometheus. Each counter is
 * one per process, as counters are: `/metrics` (prometheus-metrics.ts) registers them in its
 * registry. Every label takes its values from the fixed set its type names, each series exists
 * from the start at 0, and a count is taken once what it counts has committed.
 */

/** How a send of an email ended: accepted by the mail server, refused for good, or retried later. */
export type EmailSendResult = "sent" | "failed" | "retrying";
/** Whether an ingested event was stored or dropped as a repeat of a known `external_id`. */
export type EventIngestResult = "inserted" | "duplicate";
/**
 * A due subscription the sweep took: moved on (its charge, if any, paid or still settling), its
 * charge refused (or no method to charge: past due), or stopped by an error (rolled back; the next
 * sweep takes it again).
 */
export type RenewalResult = "renewed" | "payment_failed" | "error";
/**
 * How a checkout confirm request ended: completed, waiting for the buyer (3-D Secure), the charge
 * refused, refused before any charge (a 4xx: a missing field, a session no longer open), or an error.
 */
export type CheckoutConfirmResult = "succeeded" | "requires_action" | "payment_failed" | "rejected" | "error";

/** A counter with one label, every value of which is a series from the start. */
function labelledCounter<Value extends string>(name: string, help: string, label: string, values: readonly Value[]) {
  const counter = new Counter({ name, help, labelNames: [label], registers: [] });
  for (const value of values) counter.inc({ [label]: value }, 0);
  return {
    counter,
    add: (value: Value, count = 1) => {
      if (count > 0) counter.inc({ [label]: value }, count);
    },
  };
}

const emailSends = labelledCounter<EmailSendResult>(
  "email_sends_total",
  "Email sends by result: sent, failed (refused for good or out of retries), retrying (a temporary failure).",
  "result",
  ["sent", "failed", "retrying"],
);
const eventsIngested = labelledCounter<EventIngestResult>(
  "events_ingested_total",
  "Events received by POST /v1/events/ingest: inserted, or dropped as a repeated external_id.",
  "result",
  ["inserted", "duplicate"],
);
const renewals = labelledCounter<RenewalResult>(
  "subscription_renewals_total",
  "Due subscriptions the renewal sweep took, by result: renewed, payment_failed, error.",
  "result",
  ["renewed", "payment_failed", "error"],
);
const checkoutConfirms = labelledCounter<CheckoutConfirmResult>(
  "checkout_confirms_total",
  "Checkout confirm requests by result: succeeded, requires_action, payment_failed, rejected, error.",
  "result",
  ["succeeded", "requires_action", "payment_failed", "rejected", "error"],
);

export const countEmailSends = emailSends.add;
export const countEventsIngested = eventsIngested.add;
export const countRenewal = renewals.add;
export const countCheckoutConfirm = checkoutConfirms.add;

/** The counters, for a registry to serve. */
export const operationCounters = [emailSends, eventsIngested, renewals, checkoutConfirms].map((family) => family.counter);
