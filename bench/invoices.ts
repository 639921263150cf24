/**
 * Invoice generation throughput: 1,000 paid orders, 1,000 invoice requests through the API, time
 * until every invoice is generated (PDF rendered, stored, recorded, order.updated queued), while
 * autocannon reads GET /v1/orders/{id} against the same server, which also runs the worker.
 *
 *   node --import tsx bench/invoices.ts   (DATABASE_URL to use a running PostgreSQL; BENCH_ORDERS, default 1000;
 *                                           WORKER_CONCURRENCY passed to the server, default its own)
 */
import autocannon from "autocannon";
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { benchDatabase } from "./bench-database.ts";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { loadConfig } from "../src/config.ts";
import { connect } from "../src/db/connection.ts";
import { freePort } from "../src/db/embedded.ts";
import { migrateToLatest } from "../src/db/migrate.ts";
import { insertCustomer } from "../src/modules/customers/customers.repository.ts";
import type { CustomerRow } from "../src/modules/customers/customers.table.ts";
import { writeOrder } from "../src/modules/orders/order-creation.ts";
import { createAccessTokenService } from "../src/modules/organizations/access-tokens.service.ts";
import { createOrganizationService } from "../src/modules/organizations/organizations.service.ts";

const ORDERS = Math.min(Number(process.env.BENCH_ORDERS ?? 1000), 10_000);
const CUSTOMERS = 100;
const READ_CONNECTIONS = 10;
const TIMEOUT_MS = 300_000;

/** 1,000 paid orders written the way a completed checkout writes them, with billing details. */
async function seed(url: string, secret: string): Promise<{ token: string; orderIds: string[] }> {
  const connection = connect(url, 10);
  await migrateToLatest(connection.db, connection.pool);
  const deps = {
    db: connection.db,
    readDb: connection.db,
    config: loadConfig({ NODE_ENV: "production", LOG_LEVEL: "silent" }),
    secret,
    now: () => new Date(),
  };
  const org = await createOrganizationService(deps).create({
    name: "Bench Invoices",
    slug: `bench-invoices-${randomBytes(3).toString("hex")}`,
  });
  const organization = await connection.db.selectFrom("organizations").selectAll().where("id", "=", org.id).executeTakeFirstOrThrow();
  const { token } = await createAccessTokenService(deps).createOrganizationToken({
    organization_id: org.id,
    comment: "bench",
    scopes: ["orders:read"],
    expires_in: null,
  });
  const customers: CustomerRow[] = [];
  for (let i = 0; i < CUSTOMERS; i += 1) {
    customers.push(
      await insertCustomer(connection.db, {
        organization_id: org.id,
        email: `c${i}@bench.example`,
        external_id: null,
        name: `Customer ${i}`,
        billing_name: null,
        locale: null,
        default_payment_method_id: null,
        modified_at: null,
        deleted_at: null,
      }),
    );
  }
  const orderIds: string[] = [];
  for (let i = 0; i < ORDERS; i += 1) {
    const { order } = await connection.db.transaction().execute((trx) =>
      writeOrder(trx, {
        organization,
        customer: customers[i % CUSTOMERS]!,
        checkoutId: null,
        subscriptionId: null,
        billingReason: "purchase",
        status: "paid",
        product: { id: null, name: `Bench product ${i % 7}` },
        lines: [],
        amounts: { subtotal: 10_000, discount: 1_000, net: 9_000, tax: 1_800, total: 10_800, currency: "eur" },
        taxRate: { basisPoints: 2_000, reverseCharge: false },
        discountId: null,
        billing: {
          name: `Buyer ${i} GmbH`,
          address: { line1: `${i} Hauptstrasse`, line2: null, postal_code: "10115", city: "Berlin", state: null, country: "DE" },
          taxId: ["DE123456789", "eu_vat"],
        },
        seats: null,
        metadata: {},
        customFieldData: {},
        paymentReference: `pay_${i}`,
        now: new Date(),
      }),
    );
    orderIds.push(order.id);
  }
  await connection.close();
  return { token, orderIds };
}

/** The real server (API and worker in one process), quiet: request logging would cost it CPU. */
async function startServer(env: Record<string, string>): Promise<{ url: string; stop(): Promise<void> }> {
  const port = await freePort();
  const child = spawn(process.execPath, ["--import", "tsx", "src/server.ts"], {
    env: { ...process.env, ...env, PORT: String(port), LOG_LEVEL: "warn" },
    stdio: "inherit",
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const url = `http://127.0.0.1:${port}`;
  for (const deadline = Date.now() + 60_000; ;) {
    if (child.exitCode !== null) throw new Error("server exited before ready");
    const ready = await fetch(`${url}/readyz`).then(
      (response) => response.ok,
      () => false,
    );
    if (ready) break;
    if (Date.now() > deadline) throw new Error("server not ready in 60 s");
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  // The worker starts right after the listener; give it its first poll.
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  return { url, stop: () => (child.kill("SIGTERM"), exited) };
}

/** Reads of random orders until `stop` is called; `done` resolves with autocannon's result. */
function readLoad(url: string, token: string, orderIds: string[]) {
  let next = 0;
  let instance: autocannon.Instance | undefined;
  const done = new Promise<autocannon.Result>((resolve, reject) => {
    instance = autocannon(
      {
        url,
        connections: READ_CONNECTIONS,
        duration: TIMEOUT_MS / 1000,
        headers: { authorization: `Bearer ${token}` },
        requests: [
          { method: "GET", setupRequest: (request) => ({ ...request, path: `/v1/orders/${orderIds[next++ % orderIds.length]}` }) },
        ],
      },
      (error: Error | null, result) => (error ? reject(error) : resolve(result)),
    );
  });
  return { done, stop: () => instance?.stop() };
}

const summary = (result: autocannon.Result) =>
  `${result.requests.total} reads, ${Math.round(result.requests.average)} req/s, latency p50 ${result.latency.p50} ms / p97.5 ${result.latency.p97_5} ms / p99 ${result.latency.p99} ms / max ${result.latency.max} ms, non-2xx ${result.non2xx}, errors ${result.errors}`;

async function main(): Promise<void> {
  const db = await benchDatabase("bench-invoices");
  const dataDir = await mkdtemp(path.join(os.tmpdir(), "bench-invoices-data-"));
  const secret = randomBytes(32).toString("hex");
  const seedStarted = performance.now();
  const { token, orderIds } = await seed(db.url, secret);
  console.log(`seeded ${ORDERS} paid orders in ${Math.round(performance.now() - seedStarted)} ms`);
  const server = await startServer({
    DATABASE_URL: db.url,
    DATA_DIR: dataDir,
    SECRET_KEY: secret,
    NODE_ENV: "production",
    ...(process.env.WORKER_CONCURRENCY ? { WORKER_CONCURRENCY: process.env.WORKER_CONCURRENCY } : {}),
  });
  const monitor = new pg.Client({ connectionString: db.url });
  await monitor.connect();
  const generated = async () =>
    Number((await monitor.query<{ n: string }>("SELECT count(*) AS n FROM orders WHERE invoice_path IS NOT NULL")).rows[0]!.n);
  try {
    // Reads alone first, as the baseline the loaded numbers compare with.
    const idle = readLoad(server.url, token, orderIds);
    await new Promise((resolve) => setTimeout(resolve, 5_000));
    idle.stop();
    console.log(`reads alone (5 s):            ${summary(await idle.done)}`);

    const load = readLoad(server.url, token, orderIds);
    const started = performance.now();
    for (let i = 0; i < orderIds.length; i += 50) {
      const responses = await Promise.all(
        orderIds
          .slice(i, i + 50)
          .map((id) => fetch(`${server.url}/v1/orders/${id}/invoice`, { method: "POST", headers: { authorization: `Bearer ${token}` } })),
      );
      const refused = responses.filter((response) => response.status !== 202);
      if (refused.length) throw new Error(`invoice request answered ${refused[0]!.status}`);
    }
    const enqueuedMs = performance.now() - started;
    while ((await generated()) < ORDERS) {
      if (performance.now() - started > TIMEOUT_MS)
        throw new Error(`only ${await generated()} of ${ORDERS} invoices after ${TIMEOUT_MS} ms`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const totalMs = performance.now() - started;
    load.stop();
    console.log(`${ORDERS} invoice requests answered 202 in ${Math.round(enqueuedMs)} ms`);
    console.log(
      `all ${ORDERS} invoices generated ${Math.round(totalMs)} ms after the first request (${(ORDERS / (totalMs / 1000)).toFixed(1)} invoices/s)`,
    );
    console.log(`reads during generation:      ${summary(await load.done)}`);
  } finally {
    await monitor.end();
    await server.stop();
    await db.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

await main();
