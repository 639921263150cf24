import { webhooks } from "@polar-sh/sdk/2026-04";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import type { Deps } from "../../../src/context.ts";
import { disableEndpoint } from "../../../src/modules/webhooks/webhook-delivery.repository.ts";
import { createTestContext, testConfig, type TestContext } from "../../helpers/context.ts";
import { expectReferenceResponse } from "../../helpers/reference.ts";
import { createWebhookEndpoint, deliveryHarness, fanOutPending, recordEvent, type ReceiverAnswer } from "../../helpers/webhooks.ts";

let ctx: TestContext;

beforeAll(async () => {
  ctx = await createTestContext();
});
afterEach(async () => {
  vi.useRealTimers();
  await closeReceivers();
});
afterAll(() => ctx.close());

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const DAY = 24 * 60 * MINUTE;
const { engine, receiver, endpointFor, endpointEvents, closeReceivers } = deliveryHarness(() => ctx);

const deliveryJob = (endpointId: string) =>
  ctx.deps.db
    .selectFrom("graphile_worker.jobs" as never)
    .select(["run_at" as never])
    .where("key" as never, "=", `webhooks.deliver:${endpointId}` as never)
    .executeTakeFirst() as Promise<{ run_at: Date } | undefined>;

const storedEndpoint = (id: string) =>
  ctx.deps.db.selectFrom("webhook_endpoints").select(["enabled", "failing_since"]).where("id", "=", id).executeTakeFirstOrThrow();

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
    expect(hook.received.map((r) => Number(r.headers["webhook-timestamp"]))).toEqual(
      attemptTimes.map((t) => Math.floor(t.getTime() / 1000)),
    );
    for (const [i, request] of hook.received.entries()) {
      expect(request.headers).toMatchObject({ "content-type": "application/json", "user-agent": "polar.sh webhooks" });
      const event = await verifyWithSdk(request, endpoint.secret, attemptTimes[i]!);
      expect(event).toEqual({ type: "order.updated", timestamp: t0.toISOString(), data: { id: "ord_1", is_invoice_generated: true } });
    }
    expect(hook.received[3]!.body).toBe(
      `{"type":"order.updated","timestamp":"${t0.toISOString()}","data":{"id":"ord_1","is_invoice_generated":true}}`,
    );
    // A signature made with another secret is refused: the verification above is meaningful.
    await expect(verifyWithSdk(hook.received[3]!, `whsec_${"A".repeat(43)}`, attemptTimes[3]!)).rejects.toThrow();

    const log = await ctx.request({ method: "GET", url: `/v1/webhooks/deliveries?endpoint_id=${endpoint.id}`, token: ctx.ownerToken });
    expect(log.statusCode, log.body).toBe(200);
    expectReferenceResponse("webhooks:list_webhook_deliveries", 200, log.json());
    const items = log.json().items as {
      succeeded: boolean;
      http_code: number;
      response: string;
      webhook_event: { id: string; succeeded: boolean };
    }[];
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

  it("disables an endpoint once every delivery has failed for three days; its pending events wait and are resent, in order, when it is enabled again", async () => {
    let up = false;
    const hook = await receiver(() => (up ? { status: 200 } : { status: 500 }));
    const { organizationId, endpoint } = await endpointFor(hook.url);
    await ctx.deps.db.updateTable("organizations").set({ email: "seller@hooks.example" }).where("id", "=", organizationId).execute();
    for (let n = 0; n < 3; n += 1) await recordEvent(ctx.deps, organizationId, "order.created", { n });
    const delivery = engine();
    await fanOutPending(ctx.deps, delivery);
    const t0 = ctx.clock.now();
    const sellerEmails = () =>
      ctx.deps.db.selectFrom("emails").select(["template", "recipient"]).where("organization_id", "=", organizationId).execute();

    // The first event's schedule: ten attempts, the tenth 75 h 35 min after the first.
    const disabledBy: boolean[] = [];
    for (let attempt = 1; attempt <= 10; attempt += 1) {
      const [head] = await endpointEvents(endpoint.id);
      ctx.clock.set(head!.next_attempt_at);
      disabledBy.push(await delivery.deliverEndpoint(endpoint.id));
      if (attempt === 9) expect((await storedEndpoint(endpoint.id)).enabled).toBe(true);
    }
    expect(disabledBy).toEqual([...Array<boolean>(9).fill(false), true]);
    // The seller hears of it once, in the transaction that disabled it.
    expect(await sellerEmails()).toEqual([{ template: "webhook_endpoint_disabled", recipient: "seller@hooks.example" }]);
    expect(ctx.clock.now().getTime() - t0.getTime()).toBeGreaterThanOrEqual(3 * DAY);
    expect(hook.received).toHaveLength(10);
    expect((await endpointEvents(endpoint.id)).map((r) => [r.status, r.attempts])).toEqual([
      ["pending", 10],
      ["pending", 0],
      ["pending", 0],
    ]);
    expect(await storedEndpoint(endpoint.id)).toEqual({ enabled: false, failing_since: t0 });
    const read = await ctx.request({ method: "GET", url: `/v1/webhooks/endpoints/${endpoint.id}`, token: ctx.ownerToken });
    expectReferenceResponse("webhooks:get_webhook_endpoint", 200, read.json());
    expect(read.json().enabled).toBe(false);

    // Disabled: nothing is sent, and events recorded meanwhile are not queued for it (as the hosted service does).
    await recordEvent(ctx.deps, organizationId, "order.created", { n: "while disabled" });
    await fanOutPending(ctx.deps, delivery);
    ctx.clock.advance(DAY);
    expect(await delivery.deliverEndpoint(endpoint.id)).toBe(false);
    expect(hook.received).toHaveLength(10);
    expect(await endpointEvents(endpoint.id)).toHaveLength(3);

    up = true;
    const enabled = await ctx.request({
      method: "PATCH",
      url: `/v1/webhooks/endpoints/${endpoint.id}`,
      token: ctx.ownerToken,
      payload: { enabled: true },
    });
    expect(enabled.json().enabled).toBe(true);
    expect(await deliveryJob(endpoint.id)).toBeDefined();
    await delivery.deliverEndpoint(endpoint.id);
    expect(hook.received.slice(10).map((r) => JSON.parse(r.body).data)).toEqual([{ n: 0 }, { n: 1 }, { n: 2 }]);
    expect((await endpointEvents(endpoint.id)).map((r) => [r.status, r.attempts])).toEqual([
      ["succeeded", 1],
      ["succeeded", 1],
      ["succeeded", 1],
    ]);
    expect(await storedEndpoint(endpoint.id)).toEqual({ enabled: true, failing_since: null });
    expect(await sellerEmails()).toHaveLength(1);
  });

  it("gives up an event whose schedule ends inside the window; the next one gets its own schedule until the window (WEBHOOK_DISABLE_AFTER) closes", async () => {
    const hook = await receiver(() => ({ status: 503 }));
    const deps: Deps = { ...ctx.deps, config: testConfig({ WEBHOOK_DISABLE_AFTER: "P4D" }) };
    const { organizationId, endpoint } = await endpointFor(hook.url, deps);
    for (let n = 0; n < 3; n += 1) await recordEvent(deps, organizationId, "order.created", { n });
    const delivery = engine(deps);
    await fanOutPending(deps, delivery);
    const t0 = ctx.clock.now();

    while ((await storedEndpoint(endpoint.id)).enabled) {
      const head = (await endpointEvents(endpoint.id)).find((row) => row.status === "pending");
      ctx.clock.set(head!.next_attempt_at);
      await delivery.deliverEndpoint(endpoint.id);
    }
    // 75 h 35 min for the first event's ten attempts; the second's eighth, 31 h 35 min later, is past 4 days.
    expect((await endpointEvents(endpoint.id)).map((r) => [r.status, r.attempts])).toEqual([
      ["failed", 10],
      ["pending", 8],
      ["pending", 0],
    ]);
    expect(hook.received).toHaveLength(18);
    expect(ctx.clock.now().getTime() - t0.getTime()).toBeGreaterThanOrEqual(4 * DAY);
  });

  it("a delivery that succeeds starts the window again", async () => {
    // Event 0 fails eight times (31 h 35 min), then goes through; event 1 then fails from there on.
    const hook = await receiver((call) => (call === 8 ? { status: 204 } : { status: 500 }));
    const { organizationId, endpoint } = await endpointFor(hook.url);
    for (let n = 0; n < 2; n += 1) await recordEvent(ctx.deps, organizationId, "order.created", { n });
    const delivery = engine();
    await fanOutPending(ctx.deps, delivery);
    const t0 = ctx.clock.now();
    for (let attempt = 1; attempt <= 9; attempt += 1) {
      const head = (await endpointEvents(endpoint.id)).find((row) => row.status === "pending");
      ctx.clock.set(head!.next_attempt_at);
      await delivery.deliverEndpoint(endpoint.id);
    }
    const restartedAt = ctx.clock.now();
    expect(await storedEndpoint(endpoint.id)).toEqual({ enabled: true, failing_since: restartedAt });
    // Event 1's ninth attempt is more than three days after the very first failure, not after the success.
    for (let attempt = 2; attempt <= 9; attempt += 1) {
      const head = (await endpointEvents(endpoint.id)).find((row) => row.status === "pending");
      ctx.clock.set(head!.next_attempt_at);
      await delivery.deliverEndpoint(endpoint.id);
    }
    expect(ctx.clock.now().getTime() - t0.getTime()).toBeGreaterThan(3 * DAY);
    expect(await storedEndpoint(endpoint.id)).toEqual({ enabled: true, failing_since: restartedAt });
  });

  it("410 Gone disables the endpoint at once; what was pending is resent, in order, once it is enabled again", async () => {
    let gone = true;
    const hook = await receiver(() => (gone ? { status: 410 } : { status: 200 }));
    const { organizationId, endpoint } = await endpointFor(hook.url);
    await recordEvent(ctx.deps, organizationId, "order.created", { n: 1 });
    await recordEvent(ctx.deps, organizationId, "order.created", { n: 2 });
    const delivery = engine();
    await fanOutPending(ctx.deps, delivery);
    expect(await delivery.deliverEndpoint(endpoint.id)).toBe(true);
    expect(hook.received).toHaveLength(1);
    expect((await endpointEvents(endpoint.id)).map((r) => r.status)).toEqual(["pending", "pending"]);
    const read = await ctx.request({ method: "GET", url: `/v1/webhooks/endpoints/${endpoint.id}`, token: ctx.ownerToken });
    expect(read.json().enabled).toBe(false);

    // Disabled: new events are not even queued for it.
    await recordEvent(ctx.deps, organizationId, "order.created", { n: 3 });
    await fanOutPending(ctx.deps, delivery);
    expect(await endpointEvents(endpoint.id)).toHaveLength(2);

    gone = false;
    const patched = await ctx.request({
      method: "PATCH",
      url: `/v1/webhooks/endpoints/${endpoint.id}`,
      token: ctx.ownerToken,
      payload: { enabled: true },
    });
    expect(patched.json().enabled).toBe(true);
    await recordEvent(ctx.deps, organizationId, "order.created", { n: 4 });
    await fanOutPending(ctx.deps, delivery);
    await delivery.deliverEndpoint(endpoint.id);
    expect(hook.received.slice(1).map((r) => JSON.parse(r.body).data)).toEqual([{ n: 1 }, { n: 2 }, { n: 4 }]);
  });

  it("disabled by hand, an endpoint keeps its pending events; deleted, it skips them", async () => {
    const hook = await receiver(() => ({ status: 200 }));
    const { organizationId, endpoint } = await endpointFor(hook.url);
    await recordEvent(ctx.deps, organizationId, "order.created", { n: 1 });
    const delivery = engine();
    await fanOutPending(ctx.deps, delivery);
    const patch = (enabled: boolean) =>
      ctx.request({ method: "PATCH", url: `/v1/webhooks/endpoints/${endpoint.id}`, token: ctx.ownerToken, payload: { enabled } });
    expect((await patch(false)).json().enabled).toBe(false);
    await delivery.deliverEndpoint(endpoint.id);
    expect(hook.received).toHaveLength(0);
    expect((await endpointEvents(endpoint.id)).map((r) => r.status)).toEqual(["pending"]);
    const deleted = await ctx.request({ method: "DELETE", url: `/v1/webhooks/endpoints/${endpoint.id}`, token: ctx.ownerToken });
    expect(deleted.statusCode).toBe(204);
    expect((await endpointEvents(endpoint.id)).map((r) => r.status)).toEqual(["skipped"]);
  });

  it("one endpoint failing never delays another", async () => {
    const failing = await receiver(() => ({ status: 500 }));
    const working = await receiver(() => ({ status: 204 }));
    const { organizationId, endpoint: broken } = await endpointFor(failing.url);
    const healthy = await createWebhookEndpoint(ctx.deps, organizationId, { url: working.url, events: ["order.created"] });
    for (let n = 0; n < 3; n += 1) await recordEvent(ctx.deps, organizationId, "order.created", { n });
    const delivery = engine();
    await fanOutPending(ctx.deps, delivery);

    await delivery.deliverEndpoint(broken.id);
    await delivery.deliverEndpoint(healthy.id);
    expect(failing.received).toHaveLength(1);
    expect(working.received.map((r) => JSON.parse(r.body).data)).toEqual([{ n: 0 }, { n: 1 }, { n: 2 }]);
    // Each endpoint has its own job and queue: the broken one's retry is put off, the other's wake-up is not.
    expect((await deliveryJob(broken.id))!.run_at.getTime()).toBeGreaterThan(Date.now());
    expect((await deliveryJob(healthy.id))!.run_at.getTime()).toBeLessThanOrEqual(Date.now());
  });

  it("disables an endpoint once when failures race", async () => {
    const { endpoint } = await endpointFor("https://hooks.example.com/race");
    const outcomes = await Promise.all(
      Array.from({ length: 10 }, () => ctx.deps.db.transaction().execute((trx) => disableEndpoint(trx, endpoint.id, ctx.clock.now()))),
    );
    expect(outcomes.filter(Boolean)).toHaveLength(1);
    expect((await storedEndpoint(endpoint.id)).enabled).toBe(false);
  });
});

describe("fan-out", () => {
  it("repeats the wake-ups when its job is retried, so deliveries lost with a dead worker resume", async () => {
    const hook = await receiver();
    const { organizationId, endpoint } = await endpointFor(hook.url);
    const eventId = await recordEvent(ctx.deps, organizationId);
    const delivery = engine();
    await delivery.fanOutEvent(eventId);
    // The worker died after the commit: the wake-up never happened.
    await ctx.deps.db
      .deleteFrom("graphile_worker._private_jobs" as never)
      .where("key" as never, "=", `webhooks.deliver:${endpoint.id}` as never)
      .execute();
    await delivery.fanOutEvent(eventId, 1);
    expect(await deliveryJob(endpoint.id)).toBeUndefined();
    await delivery.fanOutEvent(eventId, 2);
    expect(await deliveryJob(endpoint.id)).toBeDefined();
    expect((await endpointEvents(endpoint.id)).map((row) => row.status)).toEqual(["pending"]);
  });
});
