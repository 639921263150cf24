/**
 * A mixed-load soak: the real server (`src/server.ts`, API and worker in one process, as `npm start`
 * runs it) under steady loads on six routes at once for BENCH_SECONDS (default 600): event ingest,
 * checkout reads, orders lists, license-key activations (each followed by its deactivation),
 * invoice requests, and the webhooks those invoices publish (`order.updated`), delivered by the
 * server's worker to a receiver process (bench/webhooks-receiver.ts) on five endpoints. Every load
 * has a fixed rate, so the soak measures a steady state rather than a saturation point.
 *
 * Prints, per route: requests, req/s, p50, p99 and errors (non-2xx included); webhooks: deliveries
 * received against expected, duplicates, and event-to-delivery latency from the database; the
 * server's RSS at ready, at the start of the steady state and at its end.
 *
 *   node --import tsx bench/soak.ts   (BENCH_SECONDS, default 600; DATABASE_URL to use a running PostgreSQL)
 */
import autocannon from "autocannon";
import { fork } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { sql } from "kysely";
import { loadConfig } from "../src/config.ts";
import { connect } from "../src/db/connection.ts";
import { migrateToLatest } from "../src/db/migrate.ts";
import { createAccessTokenService } from "../src/modules/organizations/access-tokens.service.ts";
import { createOrganizationService } from "../src/modules/organizations/organizations.service.ts";
import { createWebhookService } from "../src/modules/webhooks/webhooks.service.ts";
import { buildServices } from "../src/services.ts";
import { benchDatabase } from "./bench-database.ts";
import { buildBatch } from "./events-ingest.client.ts";
import { seedCustomers, seedLicenseKeys, seedPaidOrders, seedProducts } from "./fixtures.ts";
import { rssKiB, startServerProcess } from "./harness.ts";

const SECONDS = Math.min(Number(process.env.BENCH_SECONDS ?? 600), 3_600);
// The steady state starts once the loads have run this long: heaps, JIT and pools have grown to
// their working size by then, and growth past it is what a leak would show.
const WARMUP_SECONDS = Math.min(60, Math.ceil(SECONDS / 10));
// RSS swings by a third between garbage collections (a 30-s sampling of a first run read 280–432
// MiB), so one reading at each end says little: start and end are the medians of the samples in
// the first and the last window of the steady state.
const SAMPLE_SECONDS = 5;
const WINDOW_SECONDS = Math.min(120, Math.ceil(SECONDS / 5));
const DRAIN_LIMIT_MS = 120_000;
const RSS_GROWTH_CEILING = 10;

const INGEST_BATCH = 100;
const INVOICES_PER_SECOND = 1;
const WEBHOOK_ENDPOINTS = 5;
const LICENSE_KEYS = 200;
const CUSTOMERS = 100;
// Every invoice request needs an order without one; a margin for the warm-up checks.
const ORDERS = SECONDS * INVOICES_PER_SECOND + 100;

/**
 * The steady loads: rate in requests per second across `connections`. Modest on purpose: the
 * project's machine has two cores shared with PostgreSQL, the load generator and other people's
 * work, and a soak looks for drift (memory, latency, errors) in a steady state, not for a ceiling.
 */
const LOADS = {
  ingest: { label: `POST /v1/events/ingest (${INGEST_BATCH} events)`, rate: 5, connections: 4 },
  checkout: { label: "GET /v1/checkouts/{id}", rate: 50, connections: 8 },
  orders: { label: "GET /v1/orders/ (page of 10)", rate: 20, connections: 8 },
  activations: { label: "POST …/license-keys/activate + deactivate", rate: 10, connections: 4 },
  invoices: { label: "POST /v1/orders/{id}/invoice", rate: INVOICES_PER_SECOND, connections: 2 },
} as const;

interface Seeded {
  token: string;
  organizationId: string;
  checkoutId: string;
  keys: string[];
  orderIds: string[];
}

async function seed(url: string, secret: string, receiverPort: number): Promise<Seeded> {
  const connection = connect(url, 5);
  await migrateToLatest(connection.db, connection.pool);
  const config = loadConfig({ NODE_ENV: "production", LOG_LEVEL: "silent", WEBHOOK_ALLOW_INSECURE_LOCALHOST: "true" });
  const deps = { db: connection.db, readDb: connection.db, config, secret, now: () => new Date() };
  const org = await createOrganizationService(deps).create({ name: "Bench soak", slug: `bench-soak-${randomBytes(3).toString("hex")}` });
  const organization = await connection.db.selectFrom("organizations").selectAll().where("id", "=", org.id).executeTakeFirstOrThrow();
  const { token } = await createAccessTokenService(deps).createOrganizationToken({
    organization_id: org.id,
    comment: "bench",
    scopes: ["events:write", "checkouts:read", "orders:read"],
    expires_in: null,
  });
  const customers = await seedCustomers(connection.db, org.id, Math.max(CUSTOMERS, LICENSE_KEYS));
  const keys = (await seedLicenseKeys(connection.db, org.id, customers.slice(0, LICENSE_KEYS))).map((k) => k.key);
  const checkout = await buildServices(deps).checkouts.create({ products: await seedProducts(connection.db, org.id, 3) }, [org.id]);
  const orderIds = await seedPaidOrders(connection.db, organization, customers.slice(0, CUSTOMERS), ORDERS);
  const owner = { kind: "user" as const, tokenId: "bench", scopes: "all" as const };
  for (let i = 0; i < WEBHOOK_ENDPOINTS; i += 1) {
    await createWebhookService(deps).create(
      { url: `http://127.0.0.1:${receiverPort}/hook/${i}`, format: "raw", events: ["order.updated"], organization_id: org.id },
      owner,
    );
  }
  await connection.close();
  return { token, organizationId: org.id, checkoutId: checkout.id, keys, orderIds };
}

/** The five loads, started together; each resolves with autocannon's result after `seconds`. */
function startLoads(url: string, seeded: Seeded, seconds: number) {
  const auth = { authorization: `Bearer ${seeded.token}` };
  const json = { "content-type": "application/json" };
  const run = (load: (typeof LOADS)[keyof typeof LOADS], options: Partial<autocannon.Options>) =>
    autocannon({ url, duration: seconds, connections: load.connections, overallRate: load.rate, ...options });
  let batch = 0;
  let page = 0;
  let key = 0;
  let order = 0;
  const pages = Math.ceil(ORDERS / 10);
  // Each connection deactivates the activation it just made, so no key reaches its limit.
  type Activation = { key?: string; id?: string };
  return {
    ingest: run(LOADS.ingest, {
      method: "POST",
      headers: { ...auth, ...json },
      requests: [
        { path: "/v1/events/ingest", setupRequest: (request) => ({ ...request, body: buildBatch("soak", 0, batch++, INGEST_BATCH) }) },
      ],
    }),
    checkout: run(LOADS.checkout, { headers: auth, requests: [{ path: `/v1/checkouts/${seeded.checkoutId}` }] }),
    orders: run(LOADS.orders, {
      headers: auth,
      requests: [{ setupRequest: (request) => ({ ...request, path: `/v1/orders/?page=${(page++ % pages) + 1}&limit=10` }) }],
    }),
    activations: run(LOADS.activations, {
      method: "POST",
      headers: json,
      requests: [
        {
          path: "/v1/customer-portal/license-keys/activate",
          setupRequest: (request, context: Activation) => {
            context.key = seeded.keys[key++ % seeded.keys.length]!;
            return { ...request, body: JSON.stringify({ key: context.key, organization_id: seeded.organizationId, label: "soak" }) };
          },
          onResponse: (status, body, context: Activation) => {
            context.id = status === 200 ? (JSON.parse(body) as { id: string }).id : undefined;
          },
        },
        {
          path: "/v1/customer-portal/license-keys/deactivate",
          setupRequest: (request, context: Activation) => ({
            ...request,
            body: JSON.stringify({ key: context.key, organization_id: seeded.organizationId, activation_id: context.id }),
          }),
        },
      ],
    }),
    invoices: run(LOADS.invoices, {
      method: "POST",
      headers: auth,
      requests: [{ setupRequest: (request) => ({ ...request, path: `/v1/orders/${seeded.orderIds[order++]}/invoice` }) }],
    }),
  };
}

async function main(): Promise<void> {
  const db = await benchDatabase("bench-soak");
  const dataDir = await mkdtemp(path.join(os.tmpdir(), "bench-soak-data-"));
  const secret = randomBytes(32).toString("hex");
  const receiver = fork(fileURLToPath(new URL("./webhooks-receiver.ts", import.meta.url)), [], { execArgv: ["--import", "tsx"] });
  const receiverPort = await new Promise<number>((resolve) =>
    receiver.once("message", (message: { port: number }) => resolve(message.port)),
  );
  const ask = <T>(report: "count" | "all") =>
    new Promise<T>((resolve) => {
      receiver.once("message", (message: T) => resolve(message));
      receiver.send({ report });
    });
  const seedStarted = performance.now();
  const seeded = await seed(db.url, secret, receiverPort);
  console.log(
    `seeded in ${((performance.now() - seedStarted) / 1000).toFixed(1)} s: ${ORDERS} paid orders, ${LICENSE_KEYS} license keys, a checkout of 3 products, ${WEBHOOK_ENDPOINTS} webhook endpoints`,
  );
  const server = await startServerProcess({
    DATABASE_URL: db.url,
    DATA_DIR: dataDir,
    SECRET_KEY: secret,
    NODE_ENV: "production",
    WEBHOOK_ALLOW_INSECURE_LOCALHOST: "true",
    // The public license-key routes are rate-limited per address; the soak is one address.
    LICENSE_KEY_RATE_LIMIT_PER_ADDRESS: "1000000000",
    LICENSE_KEY_RATE_LIMIT_PER_KEY: "1000000000",
  });
  const monitor = connect(db.url, 1);
  try {
    const rssAtReady = rssKiB(server.pid) / 1024;
    console.log(
      `load average at start: ${os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(", ")}`,
    );
    console.log(
      `${SECONDS} s, RSS sampled every ${SAMPLE_SECONDS} s; steady state from ${WARMUP_SECONDS} s, RSS windows of ${WINDOW_SECONDS} s at its start and end`,
    );
    const started = Date.now();
    const samples: { at: number; mib: number }[] = [];
    const sampler = setInterval(
      () => samples.push({ at: (Date.now() - started) / 1000, mib: rssKiB(server.pid) / 1024 }),
      SAMPLE_SECONDS * 1000,
    );
    const loads = startLoads(server.url, seeded, SECONDS);
    const results = Object.fromEntries(
      await Promise.all(Object.entries(loads).map(async ([name, running]) => [name, await running] as const)),
    ) as Record<keyof typeof LOADS, autocannon.Result>;
    clearInterval(sampler);
    const loadAverage = os.loadavg();

    // Every invoice requested is generated by the worker, publishing one order.updated. Counted
    // in the database: requests still in flight when the load stopped are not in autocannon's total.
    const drainStarted = Date.now();
    const count = async (column: "invoice_requested_at" | "invoice_path") =>
      Number(
        (
          await monitor.db
            .selectFrom("orders")
            .select((eb) => eb.fn.countAll<string>().as("n"))
            .where(column, "is not", null)
            .executeTakeFirstOrThrow()
        ).n,
      );
    const requested = await count("invoice_requested_at");
    const generated = () => count("invoice_path");
    while ((await generated()) < requested && Date.now() - drainStarted < DRAIN_LIMIT_MS) await new Promise((r) => setTimeout(r, 500));
    const invoices = await generated();
    const expectedDeliveries = invoices * WEBHOOK_ENDPOINTS;
    while ((await ask<{ count: number }>("count")).count < expectedDeliveries && Date.now() - drainStarted < DRAIN_LIMIT_MS)
      await new Promise((r) => setTimeout(r, 500));
    const { arrivals } = await ask<{ arrivals: { id: string }[] }>("all");
    const duplicates = arrivals.length - new Set(arrivals.map((a) => a.id)).size;
    const { rows } = await sql<{ p50: number; p99: number; failed: string }>`
      SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM d.created_at - ev.created_at) * 1000) AS p50,
             percentile_cont(0.99) WITHIN GROUP (ORDER BY extract(epoch FROM d.created_at - ev.created_at) * 1000) AS p99,
             count(*) FILTER (WHERE NOT d.succeeded) AS failed
      FROM webhook_deliveries d
      JOIN webhook_endpoint_events ee ON ee.id = d.endpoint_event_id
      JOIN webhook_events ev ON ev.id = ee.event_id
      WHERE d.organization_id = ${seeded.organizationId}`.execute(monitor.db);
    const webhooks = rows[0]!;

    console.log(`\nload average at end: ${loadAverage.map((l) => l.toFixed(2)).join(", ")}\n`);
    const header = `${"route".padEnd(44)} ${"rate".padStart(5)} ${"requests".padStart(9)} ${"req/s".padStart(7)} ${"p50".padStart(7)} ${"p99".padStart(8)} ${"errors".padStart(7)}`;
    console.log(header);
    let errors = 0;
    for (const [name, load] of Object.entries(LOADS) as [keyof typeof LOADS, (typeof LOADS)[keyof typeof LOADS]][]) {
      const r = results[name];
      const failed = r.errors + r.non2xx;
      errors += failed;
      console.log(
        `${load.label.padEnd(44)} ${String(load.rate).padStart(5)} ${String(r.requests.total).padStart(9)} ${r.requests.average.toFixed(1).padStart(7)} ${`${r.latency.p50} ms`.padStart(7)} ${`${r.latency.p99} ms`.padStart(8)} ${String(failed).padStart(7)}`,
      );
    }
    const missing = expectedDeliveries - arrivals.length;
    errors += Math.max(0, missing) + duplicates + Number(webhooks.failed) + (requested - invoices);
    console.log(
      `${"webhooks (order.updated × 5 endpoints)".padEnd(44)} ${String(INVOICES_PER_SECOND * WEBHOOK_ENDPOINTS).padStart(5)} ${String(arrivals.length).padStart(9)} ${(arrivals.length / SECONDS).toFixed(1).padStart(7)} ${`${Math.round(webhooks.p50)} ms`.padStart(7)} ${`${Math.round(webhooks.p99)} ms`.padStart(8)} ${String(Math.max(0, missing) + duplicates + Number(webhooks.failed)).padStart(7)}`,
    );
    console.log(
      `\ninvoices: ${requested} requested, ${invoices} generated; webhooks: ${arrivals.length} of ${expectedDeliveries} delivered, ${duplicates} duplicates, ${webhooks.failed} failed attempts (latency: event recorded → delivery attempt)`,
    );
    console.log(`ingest: ${(results.ingest.requests.total - results.ingest.non2xx) * INGEST_BATCH} events`);
    const window = (from: number, to: number) => {
      const mib = samples
        .filter((sample) => sample.at >= from && sample.at < to)
        .map((sample) => sample.mib)
        .sort((x, y) => x - y);
      return { median: mib[Math.floor(mib.length / 2)] ?? Number.NaN, min: mib[0] ?? Number.NaN, max: mib.at(-1) ?? Number.NaN };
    };
    const first = window(WARMUP_SECONDS, WARMUP_SECONDS + WINDOW_SECONDS);
    const last = window(SECONDS - WINDOW_SECONDS, SECONDS + 1);
    const describe = (w: typeof first) => `median ${w.median.toFixed(1)} MiB (${w.min.toFixed(0)}–${w.max.toFixed(0)})`;
    console.log(
      `RSS by minute (median MiB): ${Array.from({ length: Math.ceil(SECONDS / 60) }, (_, m) => window(m * 60, (m + 1) * 60).median.toFixed(0)).join(", ")}`,
    );
    console.log(
      `server RSS: ${rssAtReady.toFixed(1)} MiB at ready; steady state ${WARMUP_SECONDS}–${WARMUP_SECONDS + WINDOW_SECONDS} s ${describe(first)}, ` +
        `last ${WINDOW_SECONDS} s ${describe(last)}: growth ${(((last.median - first.median) / first.median) * 100).toFixed(1)}% (ceiling ${RSS_GROWTH_CEILING}%)`,
    );
    console.log(`errors in all: ${errors}`);
  } finally {
    await monitor.close();
    await server.stop();
    receiver.disconnect();
    await db.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

await main();
