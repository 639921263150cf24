import { Counter, Gauge, type Registry } from "prom-client";
import type { Db } from "../db/database.ts";
import { sharedRead } from "./shared-read.ts";
import { mostLateEndpoints, webhookBacklog, type EndpointBacklogRow } from "./webhook-metrics.repository.ts";

/**
 * Webhook delivery metrics. Counters are counted by the process that sends (sum them over
 * processes); the backlog is read from the database at each scrape, so it covers every process.
 * No label grows with traffic or with the number of endpoints: results and endpoint states are
 * fixed sets, and per-endpoint series exist only for the `LATE_ENDPOINTS` most behind.
 */
export const LATE_ENDPOINTS = 10;

// Created once per process, unregistered: every registry built (one per app in tests) shows the same counts.
const attempts = new Counter({
  name: "webhook_delivery_attempts_total",
  help: "Webhook delivery attempts, by result: succeeded (a 2xx answer) or failed.",
  labelNames: ["result"] as const,
  registers: [],
});
const outcomes = new Counter({
  name: "webhook_events_settled_total",
  help: "Webhook events that stopped waiting on a failure: failed (retries exhausted), set_aside (no longer holding back their object's later events).",
  labelNames: ["outcome"] as const,
  registers: [],
});
for (const result of ["succeeded", "failed"]) attempts.inc({ result }, 0);
for (const outcome of ["failed", "set_aside"]) outcomes.inc({ outcome }, 0);

/** What one delivery run did: its attempts by result, and the events it gave up on or set aside. */
export function countWebhookAttempts(counts: { succeeded: number; failed: number; givenUp: number; setAside: number }): void {
  attempts.inc({ result: "succeeded" }, counts.succeeded);
  attempts.inc({ result: "failed" }, counts.failed);
  outcomes.inc({ outcome: "failed" }, counts.givenUp);
  outcomes.inc({ outcome: "set_aside" }, counts.setAside);
}

/** Adds the webhook counters and backlog gauges to `registry`. */
export function registerWebhookMetrics(registry: Registry, db: Db): void {
  registry.registerMetric(attempts);
  registry.registerMetric(outcomes);
  const registers = [registry];

  const backlog = sharedRead(() => webhookBacklog(db));
  const byState = (name: string, help: string, value: (row: { pending: number; oldest_age_seconds: number }) => number) =>
    new Gauge({
      name,
      help,
      labelNames: ["endpoint_state"] as const,
      registers,
      async collect() {
        const rows = new Map((await backlog()).map((row) => [row.endpoint_state, row]));
        for (const state of ["enabled", "disabled"]) {
          const row = rows.get(state);
          this.set({ endpoint_state: state }, row ? value(row) : 0);
        }
      },
    });
  byState("webhook_events_pending", "Webhook events not yet delivered, by the state of their endpoint.", (row) => row.pending);
  byState(
    "webhook_events_oldest_pending_age_seconds",
    "Age of the oldest undelivered webhook event, by the state of its endpoint.",
    (row) => row.oldest_age_seconds,
  );

  const late = sharedRead(() => mostLateEndpoints(db, LATE_ENDPOINTS));
  const perLateEndpoint = (name: string, help: string, value: (row: EndpointBacklogRow) => number) =>
    new Gauge({
      name,
      help,
      labelNames: ["endpoint_id"] as const,
      registers,
      async collect() {
        const rows = await late();
        // Series of endpoints no longer among the most late disappear.
        this.reset();
        for (const row of rows) this.set({ endpoint_id: row.endpoint_id }, value(row));
      },
    });
  perLateEndpoint(
    "webhook_endpoint_events_pending",
    `Undelivered events of the ${LATE_ENDPOINTS} enabled endpoints most behind.`,
    (row) => row.pending,
  );
  perLateEndpoint(
    "webhook_endpoint_oldest_pending_age_seconds",
    `Age of the oldest undelivered event of the ${LATE_ENDPOINTS} enabled endpoints most behind.`,
    (row) => row.oldest_age_seconds,
  );
}
