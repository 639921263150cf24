import type { FastifyInstance } from "fastify";
import { sql } from "kysely";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../../src/app.ts";
import type { Deps } from "../../src/context.ts";
import { connect, type Connection } from "../../src/db/connection.ts";
import { migrateToLatest } from "../../src/db/migrate.ts";
import { enqueueJob } from "../../src/jobs/queue.ts";
import { TaskName } from "../../src/jobs/task-names.ts";
import { LEASE_GRACE_MS } from "../../src/jobs/worker-leases.ts";
import { organizationClock } from "../../src/values/clock.ts";
import type { OrderRow } from "../../src/modules/orders/orders.table.ts";
import { testConfig } from "../helpers/context.ts";
import { createCustomer, createOrder, createOrganization, createOrganizationToken } from "../helpers/factories.ts";
import { perProcessStart, spawnProject, stopSpawned, type Spawned } from "../helpers/process.ts";
import { startThrowawayCluster, type ThrowawayCluster } from "../helpers/throwaway-cluster.ts";

/**
 * Every order of database restarts and `kill -9`s against real server processes on a cluster of
 * the test's own: each invoice job completes within seconds of a worker being up again (not after
 * graphile-worker's four hours), and no job is released while the process running it lives.
 */
const BATCH = 5;
/**
 * From a worker being up to every job done: the lease grace period, a recovery pass, the work, and
 * for a worker whose fetches a restart broke, five failed fetches and a new run (runner.ts). The
 * margin is wide for a loaded two-core machine; a real loss never completes at all.
 */
const COMPLETION_MS = LEASE_GRACE_MS + 60_000;

let cluster: ThrowawayCluster;
let connection: Connection;
let deps: Deps;
let app: FastifyInstance;
let dataDir: string;
let token: string;
let organizationId: string;

beforeAll(async () => {
  cluster = await startThrowawayCluster();
  connection = connect(cluster.url, 5, 2_000);
  await migrateToLatest(connection.db, connection.pool);
  dataDir = await mkdtemp(path.join(os.tmpdir(), "commerce-api-crash-"));
  deps = {
    db: connection.db,
    readDb: connection.db,
    config: testConfig({ DATA_DIR: dataDir, PUBLIC_BASE_URL: "http://api.test" }),
    secret: "crash-test-secret-".padEnd(64, "x"),
    now: organizationClock(() => new Date()),
  };
  organizationId = (await createOrganization(deps, "Crash Co")).id;
  token = await createOrganizationToken(deps, organizationId, ["orders:read"]);
  // This process only enqueues (no worker): the spawned servers run the jobs.
  app = await buildApp(deps, { logger: false });
}, perProcessStart(1));
afterEach(stopSpawned);
afterAll(async () => {
  await app?.close();
  await connection?.close();
  await cluster?.remove();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

const startServer = async (): Promise<Spawned> => {
  const server = spawnProject(["src/server.ts"], {
    DATABASE_URL: cluster.url,
    DATA_DIR: dataDir,
    SECRET_KEY: deps.secret,
    PORT: "0",
    LOG_LEVEL: "info",
    WORKER_ENABLED: "true",
    WORKER_CONCURRENCY: "1",
  });
  await server.waitFor(/"msg":"ready"/);
  return server;
};

const kill = async (server: Spawned) => {
  server.child.kill("SIGKILL");
  await server.exited;
};

const restartDatabase = async () => {
  await cluster.stop();
  await cluster.start();
};

async function until(condition: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await condition().catch(() => false)) return;
    if (Date.now() > deadline) throw new Error(`not reached in ${timeoutMs} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function newOrders(): Promise<OrderRow[]> {
  const customer = await createCustomer(deps, organizationId);
  const orders: OrderRow[] = [];
  for (let i = 0; i < BATCH; i++) orders.push(await createOrder(deps, organizationId, { customer, product: null }));
  return orders;
}

const requestInvoice = async (order: OrderRow) => {
  const response = await app.inject({
    method: "POST",
    url: `/v1/orders/${order.id}/invoice`,
    headers: { authorization: `Bearer ${token}` },
  });
  expect(response.statusCode, response.body).toBe(202);
};

/** Orders whose invoices are requested through the API, one job each. */
async function requestInvoices(): Promise<OrderRow[]> {
  const orders = await newOrders();
  for (const order of orders) await requestInvoice(order);
  return orders;
}

/**
 * Invoices requested while the first order's row is locked by the test: the worker that takes that
 * order's job renders it, then waits inside it to record it, so a kill always lands while the
 * process holds a job. (That job is queued as the API queues it; the API's own request would wait
 * on the lock too.) `blocked()` counts the sessions waiting on the lock.
 */
async function requestInvoicesHoldingOne() {
  const orders = await newOrders();
  const hold = await holdOrder(orders[0]!);
  for (const order of orders.slice(1)) await requestInvoice(order);
  await enqueueJob(deps.db, TaskName.orderInvoice, { orderId: orders[0]!.id }, { jobKey: `${TaskName.orderInvoice}:${orders[0]!.id}` });
  return { orders, hold };
}

const generated = async (orders: OrderRow[]) =>
  (
    await connection.db
      .selectFrom("orders")
      .select("id")
      .where(
        "id",
        "in",
        orders.map((order) => order.id),
      )
      .where("invoice_path", "is not", null)
      .execute()
  ).length;

const allGenerated = (orders: OrderRow[], what: string) =>
  until(async () => (await generated(orders)) === orders.length, COMPLETION_MS, what);

async function holdOrder(order: OrderRow) {
  const holder = new pg.Client({ connectionString: cluster.url });
  await holder.connect();
  await holder.query("BEGIN");
  await holder.query("SELECT id FROM orders WHERE id = $1 FOR UPDATE", [order.id]);
  const pid = (await holder.query<{ pid: number }>("SELECT pg_backend_pid() AS pid")).rows[0]!.pid;
  return {
    blocked: async () =>
      Number(
        (
          await sql<{
            n: string;
          }>`SELECT count(*) AS n FROM pg_stat_activity WHERE ${pid}::int = ANY(pg_blocking_pids(pid))`.execute(connection.db)
        ).rows[0]!.n,
      ),
    release: async () => {
      await holder.query("ROLLBACK").catch(() => undefined);
      await holder.end().catch(() => undefined);
    },
  };
}

/** Invoices requested while one is held, the process killed inside that job, the hold released. */
async function crashDuringAJob(server: Spawned): Promise<OrderRow[]> {
  const { orders, hold } = await requestInvoicesHoldingOne();
  try {
    await until(async () => (await hold.blocked()) === 1, 60_000, "the worker waits inside the held job");
    await kill(server);
  } finally {
    await hold.release();
  }
  expect(await generated(orders)).toBeLessThan(orders.length);
  return orders;
}

const liveLeases = async () =>
  Number((await sql<{ n: string }>`SELECT count(*) AS n FROM worker_leases`.execute(connection.db)).rows[0]!.n);

describe("jobs across database restarts and crashes", () => {
  it(
    "two live servers through a database restart: leases kept, no job released while its process lives",
    async () => {
      const [first, second] = [await startServer(), await startServer()];
      await restartDatabase();
      const { orders, hold } = await requestInvoicesHoldingOne();
      try {
        await until(async () => (await hold.blocked()) === 1, 60_000, "a worker waits inside the held job");
        // Well past the grace period and several recovery passes: the held job stays with its worker.
        await new Promise((resolve) => setTimeout(resolve, LEASE_GRACE_MS + 7_000));
        expect(await hold.blocked()).toBe(1);
        expect(await liveLeases()).toBeGreaterThan(0);
      } finally {
        await hold.release();
      }
      await allGenerated(orders, "every invoice");
      for (const server of [first, second]) expect(server.output()).not.toContain("released jobs of workers whose process is gone");
    },
    perProcessStart(2),
  );

  it(
    "a database restart, then a crash during a job, then a restart of the process",
    async () => {
      const first = await startServer();
      await restartDatabase();
      // The reproduction waited 65 s for the lease rows to vanish; past the grace period here.
      await new Promise((resolve) => setTimeout(resolve, LEASE_GRACE_MS + 4_000));
      expect(await liveLeases()).toBeGreaterThan(0);
      const orders = await crashDuringAJob(first);
      await startServer();
      await allGenerated(orders, "every invoice after the restart");
    },
    perProcessStart(2),
  );

  it(
    "a crash during a job, then a database restart, then a restart of the process",
    async () => {
      const orders = await crashDuringAJob(await startServer());
      await restartDatabase();
      await startServer();
      await allGenerated(orders, "every invoice after the restarts");
    },
    perProcessStart(2),
  );

  it(
    "two database restarts in a row: the live worker goes on, and a crash after them is recovered",
    async () => {
      const first = await startServer();
      await restartDatabase();
      await restartDatabase();
      const before = await requestInvoices();
      await allGenerated(before, "every invoice by the worker that lived through both restarts");
      const orders = await crashDuringAJob(first);
      await startServer();
      await allGenerated(orders, "every invoice after the crash");
    },
    perProcessStart(2),
  );
});
