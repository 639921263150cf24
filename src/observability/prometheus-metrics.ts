import type pg from "pg";
import { collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";
import type { Db } from "../db/database.ts";
import { jobQueueByTask, unsentEmailsByStatus, type JobQueueRow } from "./operations.repository.ts";
import { sharedRead } from "./shared-read.ts";
import { registerWebhookMetrics } from "./webhook-metrics.ts";
import { registerOperationMetrics } from "./operation-metrics.ts";

/** Label of requests that matched no route: their raw paths would be a label without bound. */
export const UNMATCHED_ROUTE = "(unmatched)";

/** A gauge with one series per row of a read; series of rows gone since the last scrape disappear. */
function gaugeFamily<Row>(spec: {
  registers: Registry[];
  name: string;
  help: string;
  label: string;
  read: () => Promise<Row[]>;
  labelOf: (row: Row) => string;
  value: (row: Row) => number;
}): void {
  new Gauge({
    name: spec.name,
    help: spec.help,
    labelNames: [spec.label],
    registers: spec.registers,
    async collect() {
      const rows = await spec.read();
      this.reset();
      for (const row of rows) this.set({ [spec.label]: spec.labelOf(row) }, spec.value(row));
    },
  });
}

export interface PrometheusMetrics {
  readonly registry: Registry;
  /** One finished HTTP request: the route's template (never its raw path), its method and status. */
  observeRequest(request: { method: string; route: string | undefined; statusCode: number; seconds: number }): void;
}

/**
 * The process's metrics in Prometheus's text format. Labels take values from small fixed sets
 * (methods, statuses, route templates, task names, email statuses; webhook endpoints only for the
 * few most behind), never from what a request carries, so the series count stays flat under traffic.
 * Queue, webhook backlog and email figures are read from the database at each scrape: they cover every
 * process on it (API and workers), not only this one.
 */
export function createPrometheusMetrics(db: Db, pool?: pg.Pool): PrometheusMetrics {
  const registry = new Registry();
  // Event-loop lag, heap, GC, CPU and file descriptors of this process.
  collectDefaultMetrics({ register: registry });
  const registers = [registry];

  const requests = new Histogram({
    name: "http_request_duration_seconds",
    help: "HTTP requests by route template, method and status, with their duration.",
    labelNames: ["method", "route", "status_code"] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers,
  });

  if (pool) {
    new Gauge({
      name: "db_pool_connections",
      help: "PostgreSQL connections of this process's pool: total, idle, and queries waiting for one.",
      labelNames: ["state"] as const,
      registers,
      collect() {
        this.set({ state: "total" }, pool.totalCount);
        this.set({ state: "idle" }, pool.idleCount);
        this.set({ state: "waiting" }, pool.waitingCount);
      },
    });
  }

  const jobs = sharedRead(() => jobQueueByTask(db));
  const perTask = { registers, label: "task", read: jobs, labelOf: (row: JobQueueRow) => row.task } as const;
  gaugeFamily({ ...perTask, name: "jobs_queued", help: "Jobs waiting to run, by task.", value: (row) => row.queued });
  gaugeFamily({ ...perTask, name: "jobs_running", help: "Jobs locked by a worker, by task.", value: (row) => row.running });
  gaugeFamily({
    ...perTask,
    name: "jobs_oldest_due_age_seconds",
    help: "How long the oldest due job of each task has waited to start.",
    value: (row) => row.oldest_due_age_seconds,
  });

  // Webhook deliveries: counters and backlog, in a file of their own (webhook-metrics.ts).
  registerWebhookMetrics(registry, db);

  new Gauge({
    name: "emails_unsent",
    help: "Emails waiting to be sent (pending) and given up on (failed).",
    labelNames: ["status"] as const,
    registers,
    async collect() {
      const counts = new Map((await unsentEmailsByStatus(db)).map((row) => [row.status, row.count]));
      for (const status of ["pending", "failed"]) this.set({ status }, counts.get(status) ?? 0);
    },
  });

  // Emails sent, events ingested, renewals, checkout confirms and the meters' lag (operation-metrics.ts).
  registerOperationMetrics(registry, db);

  return {
    registry,
    observeRequest: ({ method, route, statusCode, seconds }) =>
      requests.observe({ method, route: route ?? UNMATCHED_ROUTE, status_code: String(statusCode) }, seconds),
  };
}
