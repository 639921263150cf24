import type { LightMyRequestResponse } from "fastify";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { IDEMPOTENCY_LEASE_MS, IDEMPOTENCY_TTL_MS } from "../../src/http/idempotency.ts";
import { purgeExpiredKeys } from "../../src/http/idempotency-keys.repository.ts";
import { realTime } from "../../src/values/clock.ts";
import { badInputTable } from "../helpers/bad-inputs.ts";
import type { TestContext } from "../helpers/context.ts";
import {
  createCustomer,
  createLicenseKey,
  createOrganization,
  createOrganizationToken,
  createProduct,
  openOrganizationContext,
} from "../helpers/factories.ts";
import { openCheckoutThroughApi } from "../modules/checkouts/checkout-helpers.ts";
import { countEvents } from "../modules/events/ingest-fixture.ts";
import { paidOrder } from "../modules/refunds/refund-helpers.ts";
import { BUYER } from "../modules/subscriptions/subscription-helpers.ts";

// Idempotency-Key on POST and PATCH: replays, refusals, races, isolation, expiry and crashes.

let ctx: TestContext;
let org: { id: string };
let checkoutToken: string;
let refundToken: string;
let eventToken: string;
let customerId: string;

beforeAll(async () => {
  ({
    ctx,
    org,
    tokens: [checkoutToken, refundToken, eventToken],
  } = await openOrganizationContext(["checkouts:write"], ["refunds:write"], ["events:write"]));
  customerId = (await createCustomer(ctx.deps, org.id)).id;
});
afterAll(() => ctx.close());

let keys = 0;
const newKey = () => `key-${Date.now()}-${++keys}`;
const withKey = (key: string | undefined) => (key === undefined ? {} : { "idempotency-key": key });

/** An event without `external_id`: running the ingest twice would store it twice. */
const ingest = (key: string | undefined, name = "api.call", token = eventToken) =>
  ctx.request({
    method: "POST",
    url: "/v1/events/ingest",
    token,
    headers: withKey(key),
    payload: { events: [{ name, customer_id: customerId }] },
  });
const refund = (key: string, orderId: string, amount = 300) =>
  ctx.request({
    method: "POST",
    url: "/v1/refunds/",
    token: refundToken,
    headers: withKey(key),
    payload: { order_id: orderId, reason: "duplicate", amount },
  });
const refundsOf = async (orderId: string) => ctx.deps.db.selectFrom("refunds").select(["amount"]).where("order_id", "=", orderId).execute();
const eventCount = () => countEvents(ctx.deps.db);

describe("a retry with the same Idempotency-Key", () => {
  it("replays the ingest's status and body with Idempotent-Replayed: true and stores the events once", async () => {
    const key = newKey();
    const before = await eventCount();
    const first = await ingest(key);
    expect(first.statusCode, first.body).toBe(200);
    expect(first.headers["idempotent-replayed"]).toBeUndefined();
    const retry = await ingest(key);
    expect(retry.statusCode).toBe(first.statusCode);
    expect(retry.body).toBe(first.body);
    expect(retry.headers["idempotent-replayed"]).toBe("true");
    expect(retry.headers["content-type"]).toBe(first.headers["content-type"]);
    expect(await eventCount()).toBe(before + 1);
    // Without a key the same request runs every time.
    await ingest(undefined);
    await ingest(undefined);
    expect(await eventCount()).toBe(before + 3);
  });

  it("replays a refund: one refund row, the same 201 body", async () => {
    const order = await paidOrder(ctx, org.id, checkoutToken, { price: 1000 });
    const key = newKey();
    const first = await refund(key, order.id);
    expect(first.statusCode, first.body).toBe(201);
    const retries = await Promise.all([refund(key, order.id), refund(key, order.id)]);
    for (const retry of retries) {
      expect(retry.statusCode).toBe(201);
      expect(retry.json()).toEqual(first.json());
      expect(retry.headers["idempotent-replayed"]).toBe("true");
    }
    expect(await refundsOf(order.id)).toEqual([{ amount: 300 }]);
  });

  it("replays a checkout confirmation (a route without credential, keyed by its client secret): one order", async () => {
    const { product } = await createProduct(ctx.deps, org.id);
    const session = await openCheckoutThroughApi(ctx, checkoutToken, { products: [product.id] });
    const key = newKey();
    const confirm = () =>
      ctx.request({
        method: "POST",
        url: `/v1/checkouts/client/${session.client_secret}/confirm`,
        headers: withKey(key),
        payload: { ...BUYER, confirmation_token_id: "tok_visa" },
      });
    const first = await confirm();
    expect(first.statusCode, first.body).toBe(200);
    const retry = await confirm();
    expect(retry.statusCode).toBe(200);
    expect(retry.body).toBe(first.body);
    expect(retry.headers["idempotent-replayed"]).toBe("true");
    const orders = await ctx.deps.db.selectFrom("orders").select("id").where("checkout_id", "=", session.id).execute();
    expect(orders).toHaveLength(1);
  });

  it("replays a 4xx too: a refused refund answers the same refusal without running again", async () => {
    const order = await paidOrder(ctx, org.id, checkoutToken, { price: 1000 });
    const key = newKey();
    const first = await refund(key, order.id, 5000);
    expect(first.statusCode).toBe(422);
    const retry = await refund(key, order.id, 5000);
    expect(retry.statusCode).toBe(422);
    expect(retry.body).toBe(first.body);
    expect(retry.headers["idempotent-replayed"]).toBe("true");
  });
});

describe("PATCH", () => {
  it("replays an update the same way", async () => {
    const customerToken = await createOrganizationToken(ctx.deps, org.id, ["customers:write"]);
    const key = newKey();
    const update = (name: string) =>
      ctx.request({ method: "PATCH", url: `/v1/customers/${customerId}`, token: customerToken, headers: withKey(key), payload: { name } });
    const first = await update("Ada");
    expect(first.statusCode, first.body).toBe(200);
    // Changed behind the key's back: a replay answers the kept body, it does not update again.
    await ctx.deps.db.updateTable("customers").set({ name: "Changed" }).where("id", "=", customerId).execute();
    const retry = await update("Ada");
    expect(retry.headers["idempotent-replayed"]).toBe("true");
    expect(retry.body).toBe(first.body);
    expect((await ctx.deps.db.selectFrom("customers").select("name").where("id", "=", customerId).executeTakeFirstOrThrow()).name).toBe(
      "Changed",
    );
    expect((await update("Grace")).statusCode).toBe(422);
  });
});

describe("a key reused for another request", () => {
  it("answers 422 naming the header for another body or another query, and writes nothing", async () => {
    const key = newKey();
    expect((await ingest(key, "first")).statusCode).toBe(200);
    const before = await eventCount();
    const otherBody = await ingest(key, "second");
    expect(otherBody.statusCode, otherBody.body).toBe(422);
    expect(otherBody.json().detail[0]).toMatchObject({ loc: ["header", "idempotency-key"], type: "idempotency_key_reused", input: key });
    const otherPath = await ctx.request({
      method: "POST",
      url: "/v1/events/ingest",
      token: eventToken,
      headers: withKey(key),
      payload: { events: [{ name: "first", customer_id: customerId }] },
      query: { x: "1" },
    });
    expect(otherPath.statusCode).toBe(422);
    expect(otherPath.json().detail[0].loc).toEqual(["header", "idempotency-key"]);
    expect(await eventCount()).toBe(before);
  });
});

describe("concurrent requests with one key", () => {
  it("run once: the others wait for the first's response and replay it", async () => {
    const key = newKey();
    const before = await eventCount();
    const responses = await Promise.all(Array.from({ length: 6 }, () => ingest(key)));
    for (const response of responses) {
      expect(response.statusCode, response.body).toBe(200);
      expect(response.body).toBe(responses[0]!.body);
    }
    expect(responses.filter((response) => response.headers["idempotent-replayed"] === undefined)).toHaveLength(1);
    expect(await eventCount()).toBe(before + 1);
  });

  it("refunds racing with one key refund once", async () => {
    const order = await paidOrder(ctx, org.id, checkoutToken, { price: 1000 });
    const key = newKey();
    const responses = await Promise.all(Array.from({ length: 5 }, () => refund(key, order.id, 200)));
    expect(responses.map((response) => response.statusCode)).toEqual([201, 201, 201, 201, 201]);
    expect(new Set(responses.map((response) => response.json().id)).size).toBe(1);
    expect(await refundsOf(order.id)).toEqual([{ amount: 200 }]);
  });
});

describe("keys belong to a principal", () => {
  it("another organization's request with the same key and body runs on its own", async () => {
    const other = await createOrganization(ctx.deps);
    const otherToken = await createOrganizationToken(ctx.deps, other.id, ["events:write"]);
    const otherCustomer = await createCustomer(ctx.deps, other.id);
    const key = newKey();
    const send = (token: string, customer: string) =>
      ctx.request({
        method: "POST",
        url: "/v1/events/ingest",
        token,
        headers: withKey(key),
        payload: { events: [{ name: "x", customer_id: customer }] },
      });
    expect((await send(eventToken, customerId)).statusCode).toBe(200);
    const theirs = await send(otherToken, otherCustomer.id);
    expect(theirs.statusCode, theirs.body).toBe(200);
    expect(theirs.headers["idempotent-replayed"]).toBeUndefined();
    expect(await ctx.deps.db.selectFrom("events").select("id").where("organization_id", "=", other.id).execute()).toHaveLength(1);
  });

  it("two tokens of one organization share its keys", async () => {
    const secondToken = await createOrganizationToken(ctx.deps, org.id, ["events:write"]);
    const key = newKey();
    expect((await ingest(key)).statusCode).toBe(200);
    expect((await ingest(key, "api.call", secondToken)).headers["idempotent-replayed"]).toBe("true");
  });
});

describe("routes without a credential", () => {
  it("on a shared public path, callers cannot meet each other's keys: only the identical request replays", async () => {
    const licenseKey = await createLicenseKey(ctx.deps, org.id, customerId);
    const key = "shared-by-accident";
    const activate = (label: string) =>
      ctx.request({
        method: "POST",
        url: "/v1/customer-portal/license-keys/activate",
        headers: withKey(key),
        payload: { key: licenseKey.key, organization_id: org.id, label },
      });
    const mine = await activate("laptop");
    expect(mine.statusCode, mine.body).toBe(200);
    const theirs = await activate("desktop");
    expect(theirs.statusCode, theirs.body).toBe(200);
    expect(theirs.headers["idempotent-replayed"]).toBeUndefined();
    const again = await activate("laptop");
    expect(again.headers["idempotent-replayed"]).toBe("true");
    expect(again.body).toBe(mine.body);
    const activations = await ctx.deps.db
      .selectFrom("license_key_activations")
      .select("label")
      .where("license_key_id", "=", licenseKey.id)
      .execute();
    expect(activations.map((row) => row.label).sort()).toEqual(["desktop", "laptop"]);
  });
});

describe("Idempotency-Key values", () => {
  badInputTable(
    () => ctx.request,
    [
      {
        name: "an empty key",
        request: () => ({
          method: "POST",
          url: "/v1/events/ingest",
          token: eventToken,
          headers: withKey(""),
          payload: { events: [{ name: "x", customer_id: customerId }] },
        }),
        status: 422,
        loc: ["header", "idempotency-key"],
      },
      {
        name: "a key of 256 characters",
        request: () => ({
          method: "POST",
          url: "/v1/events/ingest",
          token: eventToken,
          headers: withKey("k".repeat(256)),
          payload: { events: [{ name: "x", customer_id: customerId }] },
        }),
        status: 422,
        loc: ["header", "idempotency-key"],
      },
      {
        name: "a bad key with a bad body (the key is named)",
        request: () => ({ method: "POST", url: "/v1/events/ingest", token: eventToken, headers: withKey(""), payload: { events: "no" } }),
        status: 422,
        loc: ["header", "idempotency-key"],
      },
      {
        name: "a good key without token",
        request: () => ({ method: "POST", url: "/v1/events/ingest", token: null, headers: withKey(newKey()), payload: { events: [] } }),
        status: 401,
      },
      {
        name: "a good key with a token lacking the scope",
        request: () => ({
          method: "POST",
          url: "/v1/events/ingest",
          token: refundToken,
          headers: withKey(newKey()),
          payload: { events: [] },
        }),
        status: 403,
      },
    ],
    async () => {
      expect(await ctx.deps.db.selectFrom("idempotency_keys").select("id").where("key", "=", "").execute()).toEqual([]);
    },
  );

  it("accepts a key of 255 characters and ignores the header on GET", async () => {
    const key = "k".repeat(255);
    expect((await ingest(key)).statusCode).toBe(200);
    expect((await ingest(key)).headers["idempotent-replayed"]).toBe("true");
    const list = await ctx.request({ method: "GET", url: "/v1/events/", token: eventToken, headers: withKey("") });
    expect(list.statusCode).not.toBe(422);
  });

  it("is documented on POST and PATCH operations of the OpenAPI document", async () => {
    const document = (await ctx.request({ method: "GET", url: "/openapi.json" })).json();
    const names = (operation: { parameters?: { name: string }[] } | undefined) => (operation?.parameters ?? []).map((p) => p.name);
    expect(names(document.paths["/v1/refunds/"].post)).toContain("Idempotency-Key");
    expect(names(document.paths["/v1/events/ingest"].post)).toContain("Idempotency-Key");
    expect(names(document.paths["/v1/refunds/"].get)).not.toContain("Idempotency-Key");
  });
});

describe("failures and crashes", () => {
  it("does not keep a 5xx: the retry runs again", async () => {
    const order = await paidOrder(ctx, org.id, checkoutToken, { price: 1000 });
    const key = newKey();
    await sql`CREATE FUNCTION refuse_refund() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'simulated failure'; END $$`.execute(
      ctx.deps.db,
    );
    await sql`CREATE TRIGGER refuse_refund BEFORE INSERT ON refunds FOR EACH ROW EXECUTE FUNCTION refuse_refund()`.execute(ctx.deps.db);
    try {
      expect((await refund(key, order.id)).statusCode).toBe(500);
    } finally {
      await sql`DROP TRIGGER refuse_refund ON refunds; DROP FUNCTION refuse_refund()`.execute(ctx.deps.db);
    }
    const retry = await refund(key, order.id);
    expect(retry.statusCode, retry.body).toBe(201);
    expect(retry.headers["idempotent-replayed"]).toBeUndefined();
    expect(await refundsOf(order.id)).toEqual([{ amount: 300 }]);
  });

  /** Each route users retry most: a request with a key, and how many rows it has written. */
  const crashCases: {
    route: string;
    status: number;
    open: (key: string) => Promise<{ send: () => Promise<LightMyRequestResponse>; written: () => Promise<number> }>;
  }[] = [
    {
      route: "POST /v1/refunds/",
      status: 201,
      open: async (key) => {
        const order = await paidOrder(ctx, org.id, checkoutToken, { price: 1000 });
        return { send: () => refund(key, order.id), written: async () => (await refundsOf(order.id)).length };
      },
    },
    {
      route: "POST /v1/events/ingest",
      status: 200,
      open: async (key) => {
        const name = `crash-${key}`;
        const stored = () => ctx.deps.db.selectFrom("events").select("id").where("name", "=", name).execute();
        return { send: () => ingest(key, name), written: async () => (await stored()).length };
      },
    },
    {
      route: "POST /v1/checkouts/client/{client_secret}/confirm",
      status: 200,
      open: async (key) => {
        const { product } = await createProduct(ctx.deps, org.id);
        const session = await openCheckoutThroughApi(ctx, checkoutToken, { products: [product.id] });
        const send = () =>
          ctx.request({
            method: "POST",
            url: `/v1/checkouts/client/${session.client_secret}/confirm`,
            headers: withKey(key),
            payload: { ...BUYER, confirmation_token_id: "tok_visa" },
          });
        const orders = () => ctx.deps.db.selectFrom("orders").select("id").where("checkout_id", "=", session.id).execute();
        return { send, written: async () => (await orders()).length };
      },
    },
  ];

  it.each(crashCases)("after a crash between commit and response, a retry of $route never runs twice", async ({ status, open }) => {
    const key = newKey();
    const { send, written } = await open(key);
    // The response is never kept, as when the process dies right after the request's commit.
    await sql`CREATE FUNCTION lose_response() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'simulated crash'; END $$`.execute(
      ctx.deps.db,
    );
    await sql`CREATE TRIGGER lose_response BEFORE UPDATE ON idempotency_keys FOR EACH ROW WHEN (NEW.state = 'completed') EXECUTE FUNCTION lose_response()`.execute(
      ctx.deps.db,
    );
    try {
      const first = await send();
      expect(first.statusCode, first.body).toBe(status);
    } finally {
      await sql`DROP TRIGGER lose_response ON idempotency_keys; DROP FUNCTION lose_response()`.execute(ctx.deps.db);
    }
    expect(await written()).toBe(1);
    const record = await ctx.deps.db.selectFrom("idempotency_keys").selectAll().where("key", "=", key).executeTakeFirstOrThrow();
    expect(record).toMatchObject({ state: "running", status_code: null });
    expect(record.committed_at).not.toBeNull();
    // Once the dead attempt's lease is over, retries learn that its changes were made; none runs.
    ctx.clock.advance(IDEMPOTENCY_LEASE_MS + 1_000);
    const retry = await send();
    expect(retry.statusCode, retry.body).toBe(409);
    expect(retry.json().error).toBe("IdempotencyKeyInUse");
    expect(await written()).toBe(1);
  });

  it("a 5xx after a commit is not kept and not run again: the confirm's retry answers 409 at once", async () => {
    const { product } = await createProduct(ctx.deps, org.id);
    const session = await openCheckoutThroughApi(ctx, checkoutToken, { products: [product.id] });
    const key = newKey();
    const confirm = () =>
      ctx.request({
        method: "POST",
        url: `/v1/checkouts/client/${session.client_secret}/confirm`,
        headers: withKey(key),
        payload: { ...BUYER, confirmation_token_id: "tok_visa" },
      });
    // The confirmation commits, then completing it into an order fails.
    await sql`CREATE FUNCTION refuse_order() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'simulated failure'; END $$`.execute(
      ctx.deps.db,
    );
    await sql`CREATE TRIGGER refuse_order BEFORE INSERT ON orders FOR EACH ROW EXECUTE FUNCTION refuse_order()`.execute(ctx.deps.db);
    try {
      expect((await confirm()).statusCode).toBe(500);
    } finally {
      await sql`DROP TRIGGER refuse_order ON orders; DROP FUNCTION refuse_order()`.execute(ctx.deps.db);
    }
    const statusOf = async () =>
      (await ctx.deps.db.selectFrom("checkouts").select("status").where("id", "=", session.id).executeTakeFirstOrThrow()).status;
    expect(await statusOf()).toBe("confirmed");
    const retry = await confirm();
    expect(retry.statusCode, retry.body).toBe(409);
    expect(retry.json().error).toBe("IdempotencyKeyInUse");
    expect(await statusOf()).toBe("confirmed");
  });

  it("a dead attempt that committed nothing is taken over once its lease ends", async () => {
    const order = await paidOrder(ctx, org.id, checkoutToken, { price: 1000 });
    const key = newKey();
    // The refund fails before its commit and the key is never released: what a crash mid-request leaves.
    await sql`CREATE FUNCTION fail_always() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'simulated crash'; END $$`.execute(
      ctx.deps.db,
    );
    await sql`CREATE TRIGGER refuse_refund BEFORE INSERT ON refunds FOR EACH ROW EXECUTE FUNCTION fail_always()`.execute(ctx.deps.db);
    await sql`CREATE TRIGGER keep_key BEFORE DELETE ON idempotency_keys FOR EACH ROW EXECUTE FUNCTION fail_always()`.execute(ctx.deps.db);
    try {
      expect((await refund(key, order.id)).statusCode).toBe(500);
    } finally {
      await sql`DROP TRIGGER refuse_refund ON refunds; DROP TRIGGER keep_key ON idempotency_keys; DROP FUNCTION fail_always()`.execute(
        ctx.deps.db,
      );
    }
    const record = await ctx.deps.db.selectFrom("idempotency_keys").selectAll().where("key", "=", key).executeTakeFirstOrThrow();
    expect(record).toMatchObject({ state: "running", committed_at: null });
    ctx.clock.advance(IDEMPOTENCY_LEASE_MS + 1_000);
    const retry = await refund(key, order.id);
    expect(retry.statusCode, retry.body).toBe(201);
    expect(retry.headers["idempotent-replayed"]).toBeUndefined();
    expect(await refundsOf(order.id)).toEqual([{ amount: 300 }]);
  });
});

describe("expiry", () => {
  it("replays within 24 hours, runs again after them, and the purge deletes expired records", async () => {
    const key = newKey();
    const before = await eventCount();
    expect((await ingest(key)).statusCode).toBe(200);
    ctx.clock.advance(IDEMPOTENCY_TTL_MS - 60_000);
    expect((await ingest(key)).headers["idempotent-replayed"]).toBe("true");
    ctx.clock.advance(61_000);
    const after = await ingest(key);
    expect(after.statusCode).toBe(200);
    expect(after.headers["idempotent-replayed"]).toBeUndefined();
    expect(await eventCount()).toBe(before + 2);
    ctx.clock.advance(IDEMPOTENCY_TTL_MS + 1_000);
    expect(await purgeExpiredKeys(ctx.deps.db, realTime(ctx.deps.now))).toBeGreaterThan(0);
    expect(
      await ctx.deps.db.selectFrom("idempotency_keys").select("id").where("expires_at", "<=", realTime(ctx.deps.now)).execute(),
    ).toEqual([]);
  });
});
