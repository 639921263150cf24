import type { FastifyInstance } from "fastify";
import { randomBytes } from "node:crypto";
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../../src/app.ts";
import type { Deps } from "../../src/context.ts";
import { connect, type Connection } from "../../src/db/connection.ts";
import { migrateToLatest } from "../../src/db/migrate.ts";
import { organizationClock } from "../../src/values/clock.ts";
import { testConfig } from "../helpers/context.ts";
import { createOrganization, createOrganizationToken } from "../helpers/factories.ts";
import { perProcessStart } from "../helpers/process.ts";
import { startThrowawayCluster, type ThrowawayCluster } from "../helpers/throwaway-cluster.ts";

/** The pool's wait for a connection in these tests (DATABASE_CONNECT_TIMEOUT_MS). */
const CONNECT_TIMEOUT_MS = 1_000;
/** A 503 must come within the timeout plus this much (two shared cores, a busy suite). */
const SLACK_MS = 2_500;

let cluster: ThrowawayCluster;
let connection: Connection;
let app: FastifyInstance;
let token: string;
let organizationId: string;

function appDeps(db: Connection["db"]): Deps {
  return {
    db,
    readDb: db,
    config: testConfig({ DATABASE_CONNECT_TIMEOUT_MS: String(CONNECT_TIMEOUT_MS) }),
    secret: "outage-test-secret-".padEnd(64, "x"),
    now: organizationClock(() => new Date()),
  };
}

beforeAll(async () => {
  cluster = await startThrowawayCluster();
  connection = connect(cluster.url, 5, CONNECT_TIMEOUT_MS);
  await migrateToLatest(connection.db, connection.pool);
  const deps = appDeps(connection.db);
  const org = await createOrganization(deps);
  organizationId = org.id;
  token = await createOrganizationToken(deps, org.id, [
    "customers:read",
    "customers:write",
    "products:read",
    "events:write",
    "orders:read",
  ]);
  app = await buildApp(deps, { logger: false });
  await app.ready();
}, perProcessStart(1));

afterAll(async () => {
  await app?.close();
  await connection?.close();
  await cluster?.remove();
});

const send = (method: "GET" | "POST", url: string, payload?: object) =>
  app.inject({ method, url, headers: { authorization: `Bearer ${token}` }, ...(payload ? { payload } : {}) });

/** Requests over the kinds of route there are: reads, writes, ingest, public and session routes. */
const ROUTES: { name: string; request: () => ReturnType<typeof send> }[] = [
  { name: "GET /v1/customers/", request: () => send("GET", "/v1/customers/") },
  {
    name: "POST /v1/customers/",
    request: () => send("POST", "/v1/customers/", { email: `down-${randomBytes(3).toString("hex")}@example.com` }),
  },
  { name: "GET /v1/products/", request: () => send("GET", "/v1/products/") },
  { name: "GET /v1/orders/", request: () => send("GET", "/v1/orders/") },
  {
    name: "POST /v1/events/ingest",
    request: () => send("POST", "/v1/events/ingest", { events: [{ name: "x", external_customer_id: "c" }] }),
  },
  {
    name: "POST /v1/customer-portal/license-keys/validate (public)",
    request: () =>
      app.inject({
        method: "POST",
        url: "/v1/customer-portal/license-keys/validate",
        payload: { key: "K-1", organization_id: organizationId },
      }),
  },
  {
    name: "GET /v1/checkouts/client/{secret} (public)",
    request: () => app.inject({ method: "GET", url: "/v1/checkouts/client/polar_c_unknown" }),
  },
];

async function expectUnavailable(name: string, request: () => ReturnType<typeof send>): Promise<void> {
  const started = performance.now();
  const response = await request();
  const elapsed = performance.now() - started;
  expect(response.statusCode, `${name}: ${response.body}`).toBe(503);
  expect(response.headers["retry-after"]).toBe("5");
  const body = response.json<{ error: string; detail: string }>();
  expect(body).toEqual({ error: "ServiceUnavailable", detail: expect.any(String) as string });
  expect(elapsed, name).toBeLessThan(CONNECT_TIMEOUT_MS + SLACK_MS);
}

describe("while the database is down", () => {
  it(
    "every route answers 503 with Retry-After, in time, and the service recovers by itself with every 2xx write kept",
    async () => {
      for (const route of ROUTES) expect((await route.request()).statusCode, route.name).toBeLessThan(500);

      // A client writing all along: every 201 it sees must be in the database afterwards.
      const created: string[] = [];
      const statuses = new Set<number>();
      let writing = true;
      const writer = (async () => {
        for (let i = 0; writing; i++) {
          const response = await send("POST", "/v1/customers/", { email: `writer-${i}-${randomBytes(3).toString("hex")}@example.com` });
          statuses.add(response.statusCode);
          if (response.statusCode === 201) created.push(response.json<{ id: string }>().id);
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      })();

      await cluster.stop();
      for (const route of ROUTES) await expectUnavailable(route.name, route.request);
      expect((await app.inject({ method: "GET", url: "/healthz" })).statusCode).toBe(200);
      expect((await app.inject({ method: "GET", url: "/readyz" })).statusCode).toBe(503);

      await cluster.start();
      const deadline = Date.now() + 30_000;
      let status = 0;
      while (Date.now() < deadline && status !== 200) {
        status = (await send("GET", "/v1/customers/")).statusCode;
        if (status !== 200) await new Promise((resolve) => setTimeout(resolve, 200));
      }
      expect(status).toBe(200);
      for (const route of ROUTES) expect((await route.request()).statusCode, route.name).toBeLessThan(500);
      // Let the writer see the recovered database too.
      const before = created.length;
      while (created.length < before + 3) await new Promise((resolve) => setTimeout(resolve, 50));
      writing = false;
      await writer;

      expect([...statuses].sort()).toEqual([201, 503]);
      const stored = await connection.db.selectFrom("customers").select("id").where("id", "in", created).execute();
      expect(stored).toHaveLength(created.length);
    },
    perProcessStart(1),
  );
});

describe("a database that accepts connections and never answers", () => {
  it("answers 503 once the connect timeout has passed, never hanging", async () => {
    const sockets = new Set<net.Socket>();
    const silent = net.createServer((socket) => sockets.add(socket));
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    const port = (silent.address() as net.AddressInfo).port;
    const stuck = connect(`postgres://postgres:x@127.0.0.1:${port}/postgres`, 2, CONNECT_TIMEOUT_MS);
    const stuckApp = await buildApp(appDeps(stuck.db), { logger: false });
    try {
      const started = performance.now();
      // A well-formed token: it is looked up in the (silent) database.
      const response = await stuckApp.inject({ method: "GET", url: "/v1/customers/", headers: { authorization: `Bearer ${token}` } });
      const elapsed = performance.now() - started;
      expect(response.statusCode, response.body).toBe(503);
      expect(response.headers["retry-after"]).toBe("5");
      expect(elapsed).toBeGreaterThanOrEqual(CONNECT_TIMEOUT_MS - 50);
      expect(elapsed).toBeLessThan(CONNECT_TIMEOUT_MS + SLACK_MS);
    } finally {
      await stuckApp.close();
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
      await stuck.close();
    }
  });
});
