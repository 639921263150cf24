/**
 * Webhook delivery throughput and latency: events recorded at a steady rate into one
 * organization whose 10 endpoints all subscribe, delivered by one worker process to a local
 * receiver process (bench/webhooks-receiver.ts) that answers 200 at once. Reports sustained deliveries per second and the
 * event-to-delivery latency (from just before the recording transaction commits to the arrival
 * at the receiver). A warm-up at the same rate comes first (pools connecting, JIT, plan caches),
 * is drained, and is reported apart: the target is about the sustained state.
 *
 *   node --import tsx bench/webhooks-delivery.ts [events-per-second] [seconds] [warm-up-seconds]
 *
 * Uses DATABASE_URL (a database it may create tables in) or a throwaway embedded PostgreSQL.
 * BENCH_EPHEMERAL=1 turns fsync off on the embedded server; the default keeps it on.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { fork } from "node:child_process";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { sql } from "kysely";
import pg from "pg";
import pino from "pino";
import { loadConfig } from "../src/config.ts";
import type { Deps } from "../src/context.ts";
import { connect } from "../src/db/connection.ts";
import { startEmbeddedPostgres } from "../src/db/embedded.ts";
import { migrateToLatest } from "../src/db/migrate.ts";
import { startWorker } from "../src/jobs/runner.ts";
import { buildServices } from "../src/services.ts";
import { taskList } from "../src/tasks.ts";
import { recordWebhookEvent } from "../src/jobs/webhook-outbox.ts";
import { createWebhookService } from "../src/modules/webhooks/webhooks.service.ts";
import { createOrganizationService } from "../src/modules/organizations/organizations.service.ts";

const EVENTS_PER_SECOND = Number(process.argv[2] ?? 200);
const SECONDS = Number(process.argv[3] ?? 20);
const WARMUP_SECONDS = Number(process.argv[4] ?? 5);
const ENDPOINTS = 10;
const WORKER_CONCURRENCY = 16;
const DRAIN_LIMIT_MS = 30_000;
const HARD_LIMIT_MS = (WARMUP_SECONDS + SECONDS + 120) * 1000;

const hardStop = setTimeout(() => {
  process.stderr.write("benchmark exceeded its time limit\n");
  process.exit(2);
}, HARD_LIMIT_MS);
hardStop.unref();

async function database(): Promise<{ url: string; stop: () => Promise<void> }> {
  if (process.env.DATABASE_URL) return { url: process.env.DATABASE_URL, stop: async () => undefined };
  const dir = await mkdtemp(path.join(os.tmpdir(), "bench-webhooks-"));
  await (await import("node:fs/promises")).chmod(dir, 0o755);
  const server = await startEmbeddedPostgres({
    dir: path.join(dir, "pg"),
    password: "bench",
    ephemeral: process.env.BENCH_EPHEMERAL === "1",
  });
  const admin = new pg.Client({ connectionString: server.url("postgres") });
  await admin.connect();
  await admin.query("CREATE DATABASE bench");
  await admin.end();
  return {
    url: server.url("bench"),
    stop: async () => {
      await server.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

type Phase = "warmup" | "measure";

interface Arrival {
  at: number;
  latency: number;
  id: string;
  phase: Phase;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

async function main(): Promise<void> {
  const db = await database();
  const connection = connect(db.url, 30);
  if (process.env.BENCH_LOG) process.stderr.write(`database ${db.url}\n`);
  await migrateToLatest(connection.db, connection.pool);
  const config = loadConfig({ NODE_ENV: "development", LOG_LEVEL: "silent" });
  const deps: Deps = {
    db: connection.db,
    readDb: connection.db,
    config,
    secret: "bench-secret-bench-secret-bench-secret",
    now: () => new Date(),
  };

  const receiver = fork(fileURLToPath(new URL("./webhooks-receiver.ts", import.meta.url)), [], { execArgv: ["--import", "tsx"] });
  const port = await new Promise<number>((resolve) => receiver.once("message", (message: { port: number }) => resolve(message.port)));
  const ask = <T>(report: "count" | "all") =>
    new Promise<T>((resolve) => {
      receiver.once("message", (message: T) => resolve(message));
      receiver.send({ report });
    });

  const organization = await createOrganizationService(deps).create({ name: "Bench", slug: `bench-${Date.now()}` });
  const owner = { kind: "user" as const, tokenId: "bench", scopes: "all" as const };
  for (let i = 0; i < ENDPOINTS; i += 1) {
    await createWebhookService(deps).create(
      { url: `http://127.0.0.1:${port}/hook/${i}`, format: "raw", events: ["order.paid"], organization_id: organization.id },
      owner,
    );
  }

  // The producer stands for the API processes: its own pool, as a separate process would have.
  const api = connect(db.url, 20);
  const worker = await startWorker({
    pool: connection.pool,
    tasks: taskList(deps, buildServices(deps)),
    concurrency: WORKER_CONCURRENCY,
    logger: pino({ level: process.env.BENCH_LOG ?? "silent" }),
  });

  // Producer: a tick every 10 ms records the events due by then, each in its own transaction.
  let inFlight = 0;
  let maxInFlight = 0;
  const produce = (phase: Phase, seconds: number) =>
    new Promise<{ started: number; recorded: number }>((resolve) => {
      const started = Date.now();
      let recorded = 0;
      const tick = setInterval(() => {
        const elapsed = Date.now() - started;
        if (elapsed >= seconds * 1000) {
          clearInterval(tick);
          resolve({ started, recorded });
          return;
        }
        const due = Math.floor((elapsed / 1000) * EVENTS_PER_SECOND) - recorded;
        for (let i = 0; i < due; i += 1) {
          recorded += 1;
          inFlight += 1;
          maxInFlight = Math.max(maxInFlight, inFlight);
          const data = { id: `ord_${phase}_${recorded}`, phase, sent_at: Date.now() };
          void api.db
            .transaction()
            .execute((trx) => recordWebhookEvent(trx, { organizationId: organization.id, type: "order.paid", data, now: new Date() }))
            .finally(() => {
              inFlight -= 1;
            });
        }
      }, 10);
    });
  const drain = async (expected: number, since: number) => {
    while ((await ask<{ count: number }>("count")).count < expected && Date.now() - since < DRAIN_LIMIT_MS) {
      await new Promise((r) => setTimeout(r, 100));
    }
  };

  const warmup = await produce("warmup", WARMUP_SECONDS);
  await drain(warmup.recorded * ENDPOINTS, Date.now());
  maxInFlight = 0;
  const { started, recorded } = await produce("measure", SECONDS);
  const producedAt = Date.now();
  const expected = (warmup.recorded + recorded) * ENDPOINTS;
  await drain(expected, producedAt);
  const drainedMs = Date.now() - producedAt;
  const all = (await ask<{ arrivals: Arrival[] }>("all")).arrivals;
  const arrivals = all.filter((a) => a.phase === "measure");
  const warmupLatencies = all
    .filter((a) => a.phase === "warmup")
    .map((a) => a.latency)
    .sort((a, b) => a - b);

  // Sustained rate: deliveries that arrived during the measured production window.
  const inWindow = all.filter((a) => a.at >= started && a.at < producedAt).length;
  const sustained = inWindow / ((producedAt - started) / 1000);
  const latencies = arrivals.map((a) => a.latency).sort((a, b) => a - b);
  const duplicates = all.length - new Set(all.map((a) => a.id)).size;

  // Where the time goes, from the database's own timestamps: recording → fan-out → attempt.
  const { rows: stages } = await sql<{ stage: string; p50: number; p99: number }>`
    SELECT 'record_to_fanout' AS stage,
           percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM ee.created_at - ev.created_at) * 1000) AS p50,
           percentile_cont(0.99) WITHIN GROUP (ORDER BY extract(epoch FROM ee.created_at - ev.created_at) * 1000) AS p99
    FROM webhook_endpoint_events ee JOIN webhook_events ev ON ev.id = ee.event_id
    WHERE ev.organization_id = ${organization.id} AND ev.payload->'data'->>'phase' = 'measure'
    UNION ALL
    SELECT 'fanout_to_attempt',
           percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM d.created_at - ee.created_at) * 1000),
           percentile_cont(0.99) WITHIN GROUP (ORDER BY extract(epoch FROM d.created_at - ee.created_at) * 1000)
    FROM webhook_deliveries d JOIN webhook_endpoint_events ee ON ee.id = d.endpoint_event_id JOIN webhook_events ev ON ev.id = ee.event_id
    WHERE ev.organization_id = ${organization.id} AND ev.payload->'data'->>'phase' = 'measure'`.execute(deps.db);

  const result = {
    events_per_second_offered: EVENTS_PER_SECOND,
    endpoints: ENDPOINTS,
    seconds: SECONDS,
    warmup_seconds: WARMUP_SECONDS,
    events_recorded: recorded,
    deliveries_expected: recorded * ENDPOINTS,
    deliveries_received: arrivals.length,
    sustained_deliveries_per_second: Math.round(sustained),
    drain_after_production_ms: drainedMs,
    latency_ms: { p50: percentile(latencies, 50), p95: percentile(latencies, 95), p99: percentile(latencies, 99), max: latencies.at(-1) },
    warmup_latency_ms: { p99: percentile(warmupLatencies, 99), max: warmupLatencies.at(-1) },
    stages_ms: Object.fromEntries(stages.map((row) => [row.stage, { p50: Math.round(row.p50), p99: Math.round(row.p99) }])),
    max_recording_transactions_in_flight: maxInFlight,
    duplicates,
    durable_commits: !(process.env.BENCH_EPHEMERAL === "1") || Boolean(process.env.DATABASE_URL),
  };
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);

  await worker.stop();
  await api.close();
  receiver.disconnect();
  await connection.close();
  await db.stop();
  clearTimeout(hardStop);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
