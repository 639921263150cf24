import type { FastifyInstance, InjectOptions } from "fastify";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../../src/app.ts";
import { openRuntime, type Runtime } from "../../src/runtime.ts";
import { testConfig } from "../helpers/context.ts";
import { createCustomer, createCustomerSessionToken, createOrganization, createOrganizationToken } from "../helpers/factories.ts";
import { REPLICA_UNAVAILABLE, startStreamingReplica, type StreamingReplica } from "../helpers/streaming-replica.ts";
import { BUYER } from "../modules/subscriptions/subscription-helpers.ts";

// DATABASE_READ_URL against a real streaming replica (pg_basebackup -R) of a primary of the test's
// own: the organization's lists read the standby; own writes, gets, confirm, the portal,
// Idempotency-Key and authentication read the primary (docs/decisions.md, "A read replica").

let replica: StreamingReplica;
let runtime: Runtime;
let app: FastifyInstance;
let dataDir: string;
let organizationId: string;
let token: string;

const request = (options: InjectOptions & { token?: string }) =>
  app.inject({ ...options, headers: { ...options.headers, ...(options.token ? { authorization: `Bearer ${options.token}` } : {}) } });
const listIds = async (url: string, as = token) => {
  const response = await request({ method: "GET", url, token: as });
  expect(response.statusCode, response.body).toBe(200);
  return response.json<{ items: { id: string }[] }>().items.map((item) => item.id);
};
const createProduct = async (name: string) => {
  const response = await request({
    method: "POST",
    url: "/v1/products/",
    token,
    payload: { name, prices: [{ amount_type: "fixed", price_amount: 1200 }] },
  });
  expect(response.statusCode, response.body).toBe(201);
  return response.json<{ id: string }>().id;
};
/** A checkout opened with the merchant's token and confirmed by the buyer with a sandbox card: the order's id. */
const buy = async (productId: string) => {
  const opened = await request({ method: "POST", url: "/v1/checkouts/", token, payload: { products: [productId] } });
  expect(opened.statusCode, opened.body).toBe(201);
  const secret = opened.json<{ client_secret: string }>().client_secret;
  const confirmed = await request({
    method: "POST",
    url: `/v1/checkouts/client/${secret}/confirm`,
    payload: { ...BUYER, confirmation_token_id: "tok_visa" },
  });
  expect(confirmed.statusCode, confirmed.body).toBe(200);
  // The buyer's page reads the session back right after: the primary, so it sees its own confirm.
  const session = await request({ method: "GET", url: `/v1/checkouts/client/${secret}` });
  expect(session.json<{ status: string }>().status).toBe("succeeded");
  const order = await runtime.deps.db
    .selectFrom("orders")
    .select("id")
    .where("checkout_id", "=", opened.json<{ id: string }>().id)
    .executeTakeFirstOrThrow();
  return order.id;
};

describe.skipIf(REPLICA_UNAVAILABLE !== null)("DATABASE_READ_URL on a streaming replica", () => {
  beforeAll(async () => {
    replica = await startStreamingReplica();
    // In step with the primary until a test says otherwise: every commit waits for the standby's replay.
    await replica.setSynchronous(true);
    dataDir = await mkdtemp(path.join(os.tmpdir(), "commerce-api-replica-data-"));
    const config = testConfig({
      DATABASE_URL: replica.primaryUrl,
      DATABASE_READ_URL: replica.standbyUrl,
      DATABASE_CONNECT_TIMEOUT_MS: "2000",
      DATA_DIR: dataDir,
      SECRET_KEY: "read-replica-test-secret-".padEnd(48, "x"),
    });
    // Migrations run on the primary; the standby gets them by replication.
    runtime = await openRuntime(config, pino({ level: "silent" }));
    expect(runtime.deps.readDb).not.toBe(runtime.deps.db);
    app = await buildApp(runtime.deps, { logger: false });
    organizationId = (await createOrganization(runtime.deps, "Replica Co")).id;
    token = await createOrganizationToken(runtime.deps, organizationId, [
      "products:read",
      "products:write",
      "checkouts:write",
      "orders:read",
      "customers:read",
    ]);
  }, 120_000);
  afterAll(async () => {
    await app?.close();
    await runtime?.close();
    await replica?.remove();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it("serves the usual flow with the standby in step: create, list, check out, orders and customers listed", async () => {
    const productId = await createProduct("Synced");
    expect(await listIds("/v1/products/")).toContain(productId);
    const orderId = await buy(productId);
    expect(await listIds("/v1/orders/")).toEqual([orderId]);
    expect((await request({ method: "GET", url: `/v1/orders/${orderId}`, token })).statusCode).toBe(200);
    expect(await listIds("/v1/customers/")).toHaveLength(1);
    expect((await request({ method: "GET", url: "/readyz" })).statusCode).toBe(200);
  });

  it("with replay paused, lists show the standby's past while gets, confirm, the portal, replays and new tokens read the primary", async () => {
    const ordersBefore = await listIds("/v1/orders/");
    const customer = await createCustomer(runtime.deps, organizationId, { billing_name: "Old Name" });
    const portalToken = await createCustomerSessionToken(runtime.deps, customer.id);
    await replica.setSynchronous(false);
    await replica.pauseReplay();
    try {
      const productId = await createProduct("Lagging");
      expect(await listIds("/v1/products/")).not.toContain(productId);
      expect((await request({ method: "GET", url: `/v1/products/${productId}`, token })).statusCode).toBe(200);

      // Idempotency-Key records are read on the primary: the retry is replayed, not run again.
      const rename = () =>
        request({
          method: "PATCH",
          url: `/v1/products/${productId}`,
          token,
          headers: { "idempotency-key": "rename-1" },
          payload: { name: "Renamed" },
        });
      expect((await rename()).statusCode).toBe(200);
      const retry = await rename();
      expect(retry.statusCode).toBe(200);
      expect(retry.headers["idempotent-replayed"]).toBe("true");

      const orderId = await buy(productId);
      expect(await listIds("/v1/orders/")).toEqual(ordersBefore);
      expect((await request({ method: "GET", url: `/v1/orders/${orderId}`, token })).statusCode).toBe(200);

      // The portal after an update sees the update.
      const update = await request({
        method: "PATCH",
        url: "/v1/customer-portal/customers/me",
        token: portalToken,
        payload: { billing_name: "New Name" },
      });
      expect(update.statusCode, update.body).toBe(200);
      const me = await request({ method: "GET", url: "/v1/customer-portal/customers/me", token: portalToken });
      expect(me.json<{ billing_name: string }>().billing_name).toBe("New Name");

      // A token created a moment ago authenticates (tokens are resolved on the primary).
      const fresh = await createOrganizationToken(runtime.deps, organizationId, ["products:read"]);
      expect(await listIds("/v1/products/", fresh)).not.toContain(productId);

      await replica.resumeReplay();
      expect(await listIds("/v1/products/")).toContain(productId);
      expect(await listIds("/v1/orders/")).toEqual([orderId, ...ordersBefore]);
    } finally {
      await replica.resumeReplay();
      await replica.setSynchronous(true);
    }
  });

  it("with the standby down, lists answer 503 with Retry-After, other routes still answer, /readyz says 503; all recover", async () => {
    const productId = await createProduct("Standby down");
    // Commits must not wait for a standby that is gone.
    await replica.setSynchronous(false);
    await replica.stopStandby();
    try {
      const list = await request({ method: "GET", url: "/v1/products/", token });
      expect(list.statusCode, list.body).toBe(503);
      expect(list.json()).toMatchObject({ error: "ServiceUnavailable" });
      expect(list.headers["retry-after"]).toBe("5");
      expect((await request({ method: "GET", url: `/v1/products/${productId}`, token })).statusCode).toBe(200);
      expect((await request({ method: "GET", url: "/readyz" })).statusCode).toBe(503);
    } finally {
      await replica.startStandby();
      await replica.setSynchronous(true);
    }
    expect(await listIds("/v1/products/")).toContain(productId);
    expect((await request({ method: "GET", url: "/readyz" })).statusCode).toBe(200);
  });
});
