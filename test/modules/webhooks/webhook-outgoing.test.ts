import { createServer, type AddressInfo, type Socket } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Deps } from "../../../src/context.ts";
import { RESPONSE_EXCERPT_BYTES } from "../../../src/modules/webhooks/webhook-sender.ts";
import { createTestContext, testConfig, type TestContext } from "../../helpers/context.ts";
import { createOrganization, createOrganizationToken } from "../../helpers/factories.ts";
import { createWebhookEndpoint, deliveryHarness, fanOutPending, recordEvent } from "../../helpers/webhooks.ts";

/** Ordering (events without an id share their kind's queue), and what the outgoing request does and refuses to do. */

let ctx: TestContext;
let token: string;
const SECOND = 1000;
const { engine, receiver, endpointFor, endpointEvents, closeReceivers } = deliveryHarness(() => ctx);

beforeAll(async () => {
  ctx = await createTestContext();
  const orgId = (await createOrganization(ctx.deps)).id;
  token = await createOrganizationToken(ctx.deps, orgId, ["webhooks:read"]);
});
afterEach(() => closeReceivers());
afterAll(() => ctx.close());

describe("ordering", () => {
  it("holds later events of an object behind a failing one, on that endpoint only, then delivers them in order", async () => {
    let down = true;
    const failing = await receiver(() => (down ? { status: 500 } : { status: 200 }));
    const healthy = await receiver();
    const organizationId = (await createOrganization(ctx.deps)).id;
    const a = await createWebhookEndpoint(ctx.deps, organizationId, { url: failing.url, events: ["order.created"] });
    const b = await createWebhookEndpoint(ctx.deps, organizationId, { url: healthy.url, events: ["order.created"] });
    for (let n = 1; n <= 5; n += 1) await recordEvent(ctx.deps, organizationId, "order.created", { n });
    const delivery = engine();
    await fanOutPending(ctx.deps, delivery);

    await delivery.deliverEndpoint(a.id);
    await delivery.deliverEndpoint(b.id);
    expect(failing.received.map((r) => JSON.parse(r.body).data.n)).toEqual([1]);
    expect(healthy.received.map((r) => JSON.parse(r.body).data.n)).toEqual([1, 2, 3, 4, 5]);

    down = false;
    ctx.clock.advance(5 * SECOND);
    await delivery.deliverEndpoint(a.id);
    expect(failing.received.map((r) => JSON.parse(r.body).data.n)).toEqual([1, 1, 2, 3, 4, 5]);
  });

  it("holds an event back while an earlier one of the endpoint's subscription is not yet fanned out", async () => {
    const hook = await receiver();
    const { organizationId, endpoint } = await endpointFor(hook.url);
    const first = await recordEvent(ctx.deps, organizationId, "order.created", { n: 1 });
    const second = await recordEvent(ctx.deps, organizationId, "order.updated", { n: 2 });
    const delivery = engine();
    // Another fan-out is busy with the first event while the second one's job runs.
    let release = () => undefined as void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let locked = () => undefined as void;
    const isLocked = new Promise<void>((resolve) => (locked = resolve));
    const busy = ctx.deps.db.transaction().execute(async (trx) => {
      await trx.selectFrom("webhook_events").select("id").where("id", "=", first).forUpdate().execute();
      locked();
      await released;
    });
    await isLocked;
    await delivery.fanOutEvent(second);
    await delivery.deliverEndpoint(endpoint.id);
    expect(hook.received).toHaveLength(0);
    release();
    await busy;
    await delivery.fanOutEvent(first);
    await delivery.deliverEndpoint(endpoint.id);
    expect(hook.received.map((r) => JSON.parse(r.body).data.n)).toEqual([1, 2]);
  });
});

describe("the outgoing request", () => {
  it("does not follow redirects", async () => {
    const target = await receiver();
    const hook = await receiver(() => ({ status: 302, headers: { location: target.url } }));
    const { organizationId, endpoint } = await endpointFor(hook.url);
    await recordEvent(ctx.deps, organizationId);
    await fanOutPending(ctx.deps, engine());
    await engine().deliverEndpoint(endpoint.id);
    expect(target.received).toHaveLength(0);
    expect((await endpointEvents(endpoint.id))[0]).toMatchObject({ status: "pending", last_http_code: 302 });
  });

  it("times out a silent receiver and logs why", async () => {
    const deps: Deps = { ...ctx.deps, config: testConfig({ WEBHOOK_TIMEOUT_MS: "300" }) };
    // A raw server that accepts connections and never answers.
    const sockets: Socket[] = [];
    const black = createServer((socket) => sockets.push(socket));
    await new Promise<void>((resolve) => black.listen(0, "127.0.0.1", resolve));
    const port = (black.address() as AddressInfo).port;
    try {
      const { organizationId, endpoint } = await endpointFor(`http://127.0.0.1:${port}/`, deps);
      await recordEvent(deps, organizationId);
      const started = Date.now();
      await fanOutPending(ctx.deps, engine(deps));
      await engine(deps).deliverEndpoint(endpoint.id);
      expect(Date.now() - started).toBeGreaterThanOrEqual(300);
      const delivery = await ctx.deps.db
        .selectFrom("webhook_deliveries")
        .selectAll()
        .where("endpoint_id", "=", endpoint.id)
        .executeTakeFirstOrThrow();
      expect(delivery).toMatchObject({ succeeded: false, http_code: null, response: "Timed out after 300 ms" });
      expect(delivery.duration_ms).toBeGreaterThanOrEqual(300);
    } finally {
      for (const socket of sockets) socket.destroy();
      black.close();
    }
  });

  it("keeps only the start of a long response", async () => {
    const hook = await receiver(() => ({ status: 500, body: "é".repeat(10_000) }));
    const { organizationId, endpoint } = await endpointFor(hook.url);
    await recordEvent(ctx.deps, organizationId);
    await fanOutPending(ctx.deps, engine());
    await engine().deliverEndpoint(endpoint.id);
    const delivery = await ctx.deps.db
      .selectFrom("webhook_deliveries")
      .selectAll()
      .where("endpoint_id", "=", endpoint.id)
      .executeTakeFirstOrThrow();
    expect(Buffer.byteLength(delivery.response!, "utf8")).toBe(RESPONSE_EXCERPT_BYTES);
  });

  it("re-checks the address at delivery time: a loopback URL is refused once the configuration forbids it", async () => {
    const hook = await receiver();
    const { organizationId, endpoint } = await endpointFor(hook.url);
    await recordEvent(ctx.deps, organizationId);
    const strict: Deps = { ...ctx.deps, config: testConfig({ WEBHOOK_ALLOW_INSECURE_LOCALHOST: "false" }) };
    await fanOutPending(ctx.deps, engine(strict));
    await engine(strict).deliverEndpoint(endpoint.id);
    expect(hook.received).toHaveLength(0);
    const delivery = await ctx.deps.db
      .selectFrom("webhook_deliveries")
      .selectAll()
      .where("endpoint_id", "=", endpoint.id)
      .executeTakeFirstOrThrow();
    expect(delivery).toMatchObject({ succeeded: false, http_code: null, response: "Refused: The URL must use https." });
  });

  it("answers the delivery log only for the caller's organization", async () => {
    const hook = await receiver();
    const { organizationId, endpoint } = await endpointFor(hook.url);
    await recordEvent(ctx.deps, organizationId);
    await fanOutPending(ctx.deps, engine());
    await engine().deliverEndpoint(endpoint.id);
    const foreign = await ctx.request({ method: "GET", url: `/v1/webhooks/deliveries?endpoint_id=${endpoint.id}`, token });
    expect(foreign.json()).toEqual({ items: [], pagination: { total_count: 0, max_page: 0 } });
  });
});
