import { webhooks } from "@polar-sh/sdk/2026-04";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import type { Deps } from "../../../src/context.ts";
import { disableEndpoint, incrementFailureStreak } from "../../../src/modules/webhooks/webhook-delivery.repository.ts";
import { createTestContext, testConfig, type TestContext } from "../../helpers/context.ts";
import { expectReferenceResponse } from "../../helpers/reference.ts";
import { deliveryHarness, fanOutPending, recordEvent, type ReceiverAnswer } from "../../helpers/webhooks.ts";

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
const { engine, receiver, endpointFor, endpointEvents, closeReceivers } = deliveryHarness(() => ctx);

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
    expect(rows.map((r) => [r.status, r.attempts])).toEqual([
      ["failed", 10],
      ["failed", 1],
      ["skipped", 0],
    ]);
    const stored = await ctx.deps.db
      .selectFrom("webhook_endpoints")
      .select(["enabled", "failed_events_streak"])
      .where("id", "=", endpoint.id)
      .executeTakeFirstOrThrow();
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
    const stored = await ctx.deps.db
      .selectFrom("webhook_endpoints")
      .select(["enabled", "failed_events_streak"])
      .where("id", "=", endpoint.id)
      .executeTakeFirstOrThrow();
    expect(stored).toEqual({ enabled: false, failed_events_streak: 10 });
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
