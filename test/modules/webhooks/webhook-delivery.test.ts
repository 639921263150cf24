import { webhooks } from "@polar-sh/sdk/2026-04";
import { createServer, type AddressInfo, type Socket } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import type { Deps } from "../../../src/context.ts";
import { disableEndpoint, incrementFailureStreak } from "../../../src/modules/webhooks/webhook-delivery.repository.ts";
import { createWebhookDeliveryService } from "../../../src/modules/webhooks/webhook-delivery.service.ts";
import { RESPONSE_EXCERPT_BYTES } from "../../../src/modules/webhooks/webhook-sender.ts";
import { createTestContext, testConfig, type TestContext } from "../../helpers/context.ts";
import { createOrganization, createOrganizationToken } from "../../helpers/factories.ts";
import { expectReferenceResponse } from "../../helpers/reference.ts";
import { createWebhookEndpoint, fanOutPending, recordEvent, startReceiver, type Receiver, type ReceiverAnswer } from "../../helpers/webhooks.ts";

let ctx: TestContext;
let orgId: string;
let token: string;
const receivers: Receiver[] = [];

beforeAll(async () => {
  ctx = await createTestContext();
  orgId = (await createOrganization(ctx.deps)).id;
  token = await createOrganizationToken(ctx.deps, orgId, ["webhooks:read"]);
});
afterEach(async () => {
  vi.useRealTimers();
  await Promise.all(receivers.splice(0).map((r) => r.close()));
});
afterAll(() => ctx.close());

const SECOND = 1000;
const MINUTE = 60 * SECOND;
// Jitter pinned to the middle of its range: every delay is exactly its nominal value.
const engine = (deps: Deps = ctx.deps) => createWebhookDeliveryService(deps, { random: () => 0.5 });

async function receiver(answer?: (call: number) => ReceiverAnswer): Promise<Receiver> {
  const started = await startReceiver(answer);
  receivers.push(started);
  return started;
}

/** A fresh organization with one endpoint pointing at `url`. */
async function endpointFor(url: string, deps: Deps = ctx.deps) {
  const organizationId = (await createOrganization(deps)).id;
  const endpoint = await createWebhookEndpoint(deps, organizationId, { url, events: ["order.created", "order.updated"] });
  return { organizationId, endpoint };
}

const endpointEvents = (endpointId: string) =>
  ctx.deps.db.selectFrom("webhook_endpoint_events").selectAll().where("endpoint_id", "=", endpointId).orderBy("sequence").execute();

const deliveryJob = (endpointId: string) =>
  ctx.deps.db
    .selectFrom("graphile_worker.jobs" as never)
    .select(["run_at" as never])
    .where("key" as never, "=", `webhooks.deliver:${endpointId}` as never)
    .executeTakeFirst() as Promise<{ run_at: Date } | undefined>;

async function verifyWithSdk(request: { body: string; headers: Record<string, string> }, secret: string, at: Date) {
  vi.useFakeTimers({ toFake: ["Date"] });
  vi.setSystemTime(at);
  try {
    return await webhooks.validateEvent(request.body, request.headers, secret);
  } finally {
    vi.useRealTimers();
  }
}

describe("delivery with retries", () => {
  it("fails three times, backs off on the schedule, then delivers once; the SDK verifies every attempt", async () => {
    const hook = await receiver((call) => (call < 3 ? { status: 500, body: `boom ${call}` } : { status: 204 }));
    const { organizationId, endpoint } = await endpointFor(hook.url);
    const t0 = ctx.clock.now();
    const eventId = await recordEvent(ctx.deps, organizationId, "order.updated", { id: "ord_1", is_invoice_generated: true });
    const delivery = engine();
    await delivery.fanOutEvent(eventId);

    const attemptTimes: Date[] = [];
    for (const delay of [0, 5 * SECOND, 5 * MINUTE, 30 * MINUTE]) {
      ctx.clock.advance(delay - 1);
      // Not yet due: nothing is sent.
      if (delay > 0) {
        await delivery.deliverEndpoint(endpoint.id);
        expect(hook.received).toHaveLength(attemptTimes.length);
      }
      ctx.clock.advance(1);
      attemptTimes.push(ctx.clock.now());
      await delivery.deliverEndpoint(endpoint.id);
      expect(hook.received).toHaveLength(attemptTimes.length);
      const [row] = await endpointEvents(endpoint.id);
      if (attemptTimes.length < 4) {
        const nominal = [5 * SECOND, 5 * MINUTE, 30 * MINUTE][attemptTimes.length - 1]!;
        expect(row).toMatchObject({ status: "pending", attempts: attemptTimes.length, last_http_code: 500 });
        expect(row!.next_attempt_at.getTime() - ctx.clock.now().getTime()).toBe(nominal);
        const job = await deliveryJob(endpoint.id);
        expect(job!.run_at.getTime() - Date.now()).toBeGreaterThan(nominal - 5 * SECOND);
      } else {
        expect(row).toMatchObject({ status: "succeeded", attempts: 4, last_http_code: 204 });
      }
    }

    const ids = new Set(hook.received.map((r) => r.headers["webhook-id"]));
    const [row] = await endpointEvents(endpoint.id);
    expect([...ids]).toEqual([row!.id]);
    expect(hook.received.map((r) => Number(r.headers["webhook-timestamp"]))).toEqual(attemptTimes.map((t) => Math.floor(t.getTime() / 1000)));
    for (const [i, request] of hook.received.entries()) {
      expect(request.headers).toMatchObject({ "content-type": "application/json", "user-agent": "polar.sh webhooks" });
      const event = await verifyWithSdk(request, endpoint.secret, attemptTimes[i]!);
      expect(event).toEqual({ type: "order.updated", timestamp: t0.toISOString(), data: { id: "ord_1", is_invoice_generated: true } });
    }
    expect(hook.received[3]!.body).toBe(`{"type":"order.updated","timestamp":"${t0.toISOString()}","data":{"id":"ord_1","is_invoice_generated":true}}`);
    // A signature made with another secret is refused: the verification above is meaningful.
    await expect(verifyWithSdk(hook.received[3]!, `whsec_${"A".repeat(43)}`, attemptTimes[3]!)).rejects.toThrow();

    const log = await ctx.request({ method: "GET", url: `/v1/webhooks/deliveries?endpoint_id=${endpoint.id}`, token: ctx.ownerToken });
    expectReferenceResponse("webhooks:list_webhook_deliveries", 200, log.json());
    const items = log.json().items as { succeeded: boolean; http_code: number; response: string; webhook_event: { id: string; succeeded: boolean } }[];
    expect(items.map((d) => [d.succeeded, d.http_code, d.response])).toEqual([
      [true, 204, ""],
      [false, 500, "boom 2"],
      [false, 500, "boom 1"],
      [false, 500, "boom 0"],
    ]);
    expect(items.every((d) => d.webhook_event.id === row!.id && d.webhook_event.succeeded === true)).toBe(true);
  });

  it("waits at least as long as Retry-After asks, in seconds or as a date, capped at a day", async () => {
    const now = ctx.clock.now();
    const answers: ReceiverAnswer[] = [
      { status: 503, headers: { "retry-after": "120" } },
      { status: 429, headers: { "retry-after": new Date(now.getTime() + 2 * 3600_000).toUTCString() } },
      { status: 503, headers: { "retry-after": String(7 * 24 * 3600) } },
    ];
    const hook = await receiver((call) => answers[call] ?? { status: 200 });
    const { organizationId, endpoint } = await endpointFor(hook.url);
    await recordEvent(ctx.deps, organizationId);
    const delivery = engine();
    await fanOutPending(ctx.deps, delivery);

    await delivery.deliverEndpoint(endpoint.id);
    let [row] = await endpointEvents(endpoint.id);
    expect(row!.next_attempt_at.getTime() - ctx.clock.now().getTime()).toBe(120 * SECOND);

    ctx.clock.set(row!.next_attempt_at);
    await delivery.deliverEndpoint(endpoint.id);
    [row] = await endpointEvents(endpoint.id);
    // The HTTP date has one-second precision; 2 h is longer than the scheduled 5 min.
    expect(Math.abs(row!.next_attempt_at.getTime() - (now.getTime() + 2 * 3600_000))).toBeLessThan(1000);

    ctx.clock.set(row!.next_attempt_at);
    await delivery.deliverEndpoint(endpoint.id);
    [row] = await endpointEvents(endpoint.id);
    expect(row!.next_attempt_at.getTime() - ctx.clock.now().getTime()).toBe(24 * 3600_000);
  });

  it("gives an event up after ten attempts; later events get one try each; the endpoint is disabled after the configured streak", async () => {
    const hook = await receiver(() => ({ status: 500 }));
    const deps: Deps = { ...ctx.deps, config: testConfig({ WEBHOOK_MAX_CONSECUTIVE_FAILURES: "2" }) };
    const { organizationId, endpoint } = await endpointFor(hook.url, deps);
    for (let i = 0; i < 3; i += 1) await recordEvent(deps, organizationId, "order.created", { n: i });
    const delivery = engine(deps);
    await fanOutPending(ctx.deps, delivery);

    for (let attempt = 1; attempt <= 10; attempt += 1) {
      const [head] = await endpointEvents(endpoint.id);
      ctx.clock.set(head!.next_attempt_at);
      await delivery.deliverEndpoint(endpoint.id);
    }
    // The tenth failure gave the first event up; the second had its single attempt at once.
    expect(hook.received).toHaveLength(11);
    const rows = await endpointEvents(endpoint.id);
    expect(rows.map((r) => [r.status, r.attempts])).toEqual([["failed", 10], ["failed", 1], ["skipped", 0]]);
    const stored = await ctx.deps.db.selectFrom("webhook_endpoints").select(["enabled", "failed_events_streak"]).where("id", "=", endpoint.id).executeTakeFirstOrThrow();
    expect(stored).toEqual({ enabled: false, failed_events_streak: 2 });
  });

  it("410 Gone disables the endpoint at once and skips what was pending; re-enabling resumes", async () => {
    let gone = true;
    const hook = await receiver(() => (gone ? { status: 410 } : { status: 200 }));
    const { organizationId, endpoint } = await endpointFor(hook.url);
    await recordEvent(ctx.deps, organizationId, "order.created", { n: 1 });
    await recordEvent(ctx.deps, organizationId, "order.created", { n: 2 });
    const delivery = engine();
    await fanOutPending(ctx.deps, delivery);
    await delivery.deliverEndpoint(endpoint.id);
    expect(hook.received).toHaveLength(1);
    expect((await endpointEvents(endpoint.id)).map((r) => r.status)).toEqual(["failed", "skipped"]);
    const read = await ctx.request({ method: "GET", url: `/v1/webhooks/endpoints/${endpoint.id}`, token: ctx.ownerToken });
    expect(read.json().enabled).toBe(false);

    // Disabled: new events are not even queued for it.
    await recordEvent(ctx.deps, organizationId, "order.created", { n: 3 });
    await fanOutPending(ctx.deps, delivery);
    expect(await endpointEvents(endpoint.id)).toHaveLength(2);

    gone = false;
    const patched = await ctx.request({ method: "PATCH", url: `/v1/webhooks/endpoints/${endpoint.id}`, token: ctx.ownerToken, payload: { enabled: true } });
    expect(patched.json().enabled).toBe(true);
    await recordEvent(ctx.deps, organizationId, "order.created", { n: 4 });
    await fanOutPending(ctx.deps, delivery);
    await delivery.deliverEndpoint(endpoint.id);
    expect(JSON.parse(hook.received[1]!.body).data).toEqual({ n: 4 });
  });

  it("disables an endpoint once when failures race", async () => {
    const { endpoint } = await endpointFor("https://hooks.example.com/race");
    const outcomes = await Promise.all(
      Array.from({ length: 10 }, () =>
        ctx.deps.db.transaction().execute(async (trx) => {
          const streak = await incrementFailureStreak(trx, endpoint.id);
          return streak >= 3 ? disableEndpoint(trx, endpoint.id, ctx.clock.now()) : false;
        }),
      ),
    );
    expect(outcomes.filter(Boolean)).toHaveLength(1);
    const stored = await ctx.deps.db.selectFrom("webhook_endpoints").select(["enabled", "failed_events_streak"]).where("id", "=", endpoint.id).executeTakeFirstOrThrow();
    expect(stored).toEqual({ enabled: false, failed_events_streak: 10 });
  });
});

describe("ordering", () => {
  it("holds later events behind a failing one for that endpoint only, then delivers them in order", async () => {
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
      const delivery = await ctx.deps.db.selectFrom("webhook_deliveries").selectAll().where("endpoint_id", "=", endpoint.id).executeTakeFirstOrThrow();
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
    const delivery = await ctx.deps.db.selectFrom("webhook_deliveries").selectAll().where("endpoint_id", "=", endpoint.id).executeTakeFirstOrThrow();
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
    const delivery = await ctx.deps.db.selectFrom("webhook_deliveries").selectAll().where("endpoint_id", "=", endpoint.id).executeTakeFirstOrThrow();
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
