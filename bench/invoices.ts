/**
 * Invoice generation throughput: 1,000 paid orders, 1,000 invoice requests through the API, time
 * until every invoice is generated (PDF rendered, stored, recorded, order.updated queued), while
 * autocannon reads GET /v1/orders/{id} against the same server, which also runs the worker.
 *
 *   node --import tsx bench/invoices.ts   (DATABASE_URL to use a running PostgreSQL; BENCH_ORDERS, default 1000;
 *                                           WORKER_CONCURRENCY passed to the server, default its own)
 */
import autocannon from "autocannon";
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { benchDatabase } from "./bench-database.ts";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { loadConfig } from "../src/config.ts";
import { connect } from "../src/db/connection.ts";
import { migrateToLatest } from "../src/db/migrate.ts";
import { createAccessTokenService } from "../src/modules/organizations/access-tokens.service.ts";
import { createOrganizationService } from "../src/modules/organizations/organizations.service.ts";
import { seedCustomers, seedPaidOrders } from "./fixtures.ts";
import { startServerProcess } from "./harness.ts";

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
  const orderIds = await seedPaidOrders(connection.db, organization, await seedCustomers(connection.db, org.id, CUSTOMERS), ORDERS);
  await connection.close();
  return { token, orderIds };
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
  const server = await startServerProcess({
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
