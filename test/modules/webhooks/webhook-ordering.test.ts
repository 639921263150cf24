import pino from "pino";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startWorker } from "../../../src/jobs/runner.ts";
import type { WebhookEventType } from "../../../src/jobs/webhook-outbox.ts";
import { orderingKeyOf } from "../../../src/jobs/webhook-ordering.ts";
import { buildServices } from "../../../src/services.ts";
import { taskList } from "../../../src/tasks.ts";
import { createTestContext, type TestContext } from "../../helpers/context.ts";
import { createOrganization, createOrganizationToken } from "../../helpers/factories.ts";
import { expectReferenceResponse } from "../../helpers/reference.ts";
import {
  createWebhookEndpoint,
  deliveryHarness,
  fanOutPending,
  recordEvent,
  startReceiver,
  waitFor,
  type ReceivedWebhook,
  type Receiver,
  type ReceiverAnswer,
} from "../../helpers/webhooks.ts";

/** Ordering per object: what a receiver sees when it refuses some events, and how long one can hold back its object. */

let ctx: TestContext;
const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const cleanups: (() => Promise<void>)[] = [];
const { engine, endpointEvents } = deliveryHarness(() => ctx);

beforeAll(async () => {
  ctx = await createTestContext();
});
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});
afterAll(() => ctx.close());

interface Seen {
  type: string;
  id: string;
  n: number | undefined;
  webhookId: string;
  status: number;
}

/** A receiver answering by what it is sent; `seen` lists every request with the answer given, in arrival order. */
async function receiverAnswering(answer: (event: { type: string; id: string; n: number | undefined }) => number) {
  const seen: Seen[] = [];
  const started: Receiver = await startReceiver((_call, request: ReceivedWebhook): ReceiverAnswer => {
    const body = JSON.parse(request.body) as { type: string; data: { id: string; n?: number } };
    const event = { type: body.type, id: body.data.id, n: body.data.n };
    const status = answer(event);
    seen.push({ ...event, webhookId: request.headers["webhook-id"]!, status });
    return { status };
  });
  cleanups.push(() => started.close());
  return { url: started.url, seen };
}

const ALL_TYPES: WebhookEventType[] = ["order.created", "order.updated", "order.paid", "subscription.created", "subscription.updated"];

async function endpointAt(url: string) {
  const organizationId = (await createOrganization(ctx.deps)).id;
  const endpoint = await createWebhookEndpoint(ctx.deps, organizationId, { url, events: ALL_TYPES });
  return { organizationId, endpoint };
}

const rowOf = async (endpointId: string, type: string, id: string) => {
  const rows = await endpointEvents(endpointId);
  const events = await ctx.deps.db
    .selectFrom("webhook_events")
    .select(["id", "payload"])
    .where(
      "id",
      "in",
      rows.map((row) => row.event_id),
    )
    .execute();
  const eventId = events.find((event) => event.payload.type === type && (event.payload.data as { id: string }).id === id)!.id;
  return rows.find((row) => row.event_id === eventId)!;
};

describe("ordering keys", () => {
  it("orders each event type by the object it is about; refunds by their order", () => {
    expect(orderingKeyOf("order.paid", { id: "o1" })).toBe("order:o1");
    expect(orderingKeyOf("refund.created", { id: "r1", order_id: "o1" })).toBe("order:o1");
    expect(orderingKeyOf("subscription.canceled", { id: "s1" })).toBe("subscription:s1");
    expect(orderingKeyOf("customer.state_changed", { id: "c1" })).toBe("customer:c1");
    expect(orderingKeyOf("benefit_grant.revoked", { id: "g1" })).toBe("benefit_grant:g1");
    expect(orderingKeyOf("checkout.updated", { id: "k1" })).toBe("checkout:k1");
    expect(orderingKeyOf("customer_seat.claimed", { id: "x1" })).toBe("customer_seat:x1");
    // Without an id, one queue for the kind: more order than needed, never less.
    expect(orderingKeyOf("order.created", { n: 1 })).toBe("order:");
  });
});

describe("a receiver refusing one kind of event", () => {
  it("still receives every order.* event within seconds, each order's in order, when it refuses every subscription.* event", async () => {
    const hook = await receiverAnswering((event) => (event.type.startsWith("subscription.") ? 500 : 204));
    const { organizationId } = await endpointAt(hook.url);
    const worker = await startWorker({
      pool: ctx.database.pool,
      tasks: taskList(ctx.deps, buildServices(ctx.deps)),
      concurrency: 4,
      logger: pino({ level: "silent" }),
    });
    cleanups.push(() => worker.stop());

    const objects = 15;
    const started = Date.now();
    for (let i = 0; i < objects; i += 1) {
      await recordEvent(ctx.deps, organizationId, "subscription.created", { id: `sub_${i}` });
      await recordEvent(ctx.deps, organizationId, "order.created", { id: `ord_${i}` });
      await recordEvent(ctx.deps, organizationId, "subscription.updated", { id: `sub_${i}` });
      await recordEvent(ctx.deps, organizationId, "order.paid", { id: `ord_${i}` });
    }
    const orders = () => hook.seen.filter((seen) => seen.type.startsWith("order."));
    await waitFor(() => orders().length === 2 * objects, 10_000);
    expect(Date.now() - started).toBeLessThan(10_000);
    for (let i = 0; i < objects; i += 1) {
      expect(
        orders()
          .filter((seen) => seen.id === `ord_${i}`)
          .map((seen) => seen.type),
      ).toEqual(["order.created", "order.paid"]);
    }
    expect(orders().every((seen) => seen.status === 204)).toBe(true);

    // Each subscription's first event was tried and refused; its second waits behind it.
    await waitFor(() => hook.seen.filter((seen) => seen.type === "subscription.created").length === objects);
    expect(hook.seen.some((seen) => seen.type === "subscription.updated")).toBe(false);
  }, 30_000);
});

describe("order per object", () => {
  it("delivers two events about one order in order, behind a retry, while another order's flow past", async () => {
    let refused = 0;
    const hook = await receiverAnswering((event) => (event.id === "ord_a" && event.n === 1 && refused++ === 0 ? 503 : 200));
    const { organizationId, endpoint } = await endpointAt(hook.url);
    await recordEvent(ctx.deps, organizationId, "order.created", { id: "ord_a", n: 1 });
    await recordEvent(ctx.deps, organizationId, "order.created", { id: "ord_b", n: 1 });
    await recordEvent(ctx.deps, organizationId, "order.updated", { id: "ord_a", n: 2 });
    await recordEvent(ctx.deps, organizationId, "order.updated", { id: "ord_b", n: 2 });
    const delivery = engine();
    await fanOutPending(ctx.deps, delivery);

    await delivery.deliverEndpoint(endpoint.id);
    const view = () => hook.seen.map((seen) => `${seen.id}#${seen.n}:${seen.status}`);
    expect(view().filter((line) => line.startsWith("ord_a"))).toEqual(["ord_a#1:503"]);
    expect(view().filter((line) => line.startsWith("ord_b"))).toEqual(["ord_b#1:200", "ord_b#2:200"]);

    ctx.clock.advance(5 * SECOND);
    await delivery.deliverEndpoint(endpoint.id);
    expect(view().filter((line) => line.startsWith("ord_a"))).toEqual(["ord_a#1:503", "ord_a#1:200", "ord_a#2:200"]);
    expect((await endpointEvents(endpoint.id)).every((row) => row.status === "succeeded")).toBe(true);
  });
});

describe("the bound on holding back an object", () => {
  it("sets a refused event aside at its 4th failed attempt (35 min) once the endpoint accepts others; it keeps its retries", async () => {
    const hook = await receiverAnswering((event) => (event.id === "sub_1" && event.n === 1 ? 500 : 200));
    const { organizationId, endpoint } = await endpointAt(hook.url);
    await recordEvent(ctx.deps, organizationId, "subscription.created", { id: "sub_1", n: 1 });
    await recordEvent(ctx.deps, organizationId, "subscription.updated", { id: "sub_1", n: 2 });
    const delivery = engine();
    await fanOutPending(ctx.deps, delivery);
    const firstFailure = ctx.clock.now();
    await delivery.deliverEndpoint(endpoint.id);
    // The endpoint accepts other traffic after that first refusal.
    await recordEvent(ctx.deps, organizationId, "order.created", { id: "ord_1", n: 1 });
    await fanOutPending(ctx.deps, delivery);
    await delivery.deliverEndpoint(endpoint.id);

    const updates = () => hook.seen.filter((seen) => seen.id === "sub_1" && seen.n === 2);
    for (const delay of [5 * SECOND, 5 * MINUTE, 30 * MINUTE]) {
      expect(updates()).toHaveLength(0);
      ctx.clock.advance(delay);
      await delivery.deliverEndpoint(endpoint.id);
    }
    // The 4th refusal, 35 min 5 s after the first, lets the later event go in the same run.
    expect(ctx.clock.now().getTime() - firstFailure.getTime()).toBe(35 * MINUTE + 5 * SECOND);
    expect(updates().map((seen) => seen.status)).toEqual([200]);
    const poisoned = await rowOf(endpoint.id, "subscription.created", "sub_1");
    expect(poisoned).toMatchObject({ status: "pending", attempts: 4, holds_order: false, first_failed_at: firstFailure });
    expect(poisoned.next_attempt_at.getTime() - ctx.clock.now().getTime()).toBe(2 * HOUR);

    // Set aside, it retries on its schedule, and the object's later events no longer wait for it.
    await recordEvent(ctx.deps, organizationId, "subscription.updated", { id: "sub_1", n: 3 });
    await fanOutPending(ctx.deps, delivery);
    await delivery.deliverEndpoint(endpoint.id);
    expect(hook.seen.filter((seen) => seen.id === "sub_1").map((seen) => `${seen.n}:${seen.status}`)).toEqual([
      "1:500",
      "1:500",
      "1:500",
      "1:500",
      "2:200",
      "3:200",
    ]);
    ctx.clock.advance(2 * HOUR);
    await delivery.deliverEndpoint(endpoint.id);
    expect(hook.seen.at(-1)).toMatchObject({ id: "sub_1", n: 1, status: 500 });
    expect(await rowOf(endpoint.id, "subscription.created", "sub_1")).toMatchObject({ status: "pending", attempts: 5 });

    // Every attempt is listed for the endpoint, with its event.
    const token = await createOrganizationToken(ctx.deps, organizationId, ["webhooks:read"]);
    const log = await ctx.request({ method: "GET", url: `/v1/webhooks/deliveries?endpoint_id=${endpoint.id}&limit=100`, token });
    expect(log.statusCode, log.body).toBe(200);
    expectReferenceResponse("webhooks:list_webhook_deliveries", 200, log.json());
    const items = log.json().items as {
      succeeded: boolean;
      http_code: number;
      webhook_event: { id: string; type: string; succeeded: boolean | null };
    }[];
    expect(items).toHaveLength(hook.seen.length);
    const refusedItems = items.filter((item) => item.webhook_event.id === poisoned.id);
    expect(refusedItems.map((item) => [item.succeeded, item.http_code, item.webhook_event.succeeded])).toEqual(
      Array(5).fill([false, 500, false]),
    );
  });

  it("keeps order through an outage: an endpoint accepting nothing never has its events set aside", async () => {
    let down = true;
    const hook = await receiverAnswering(() => (down ? 503 : 200));
    const { organizationId, endpoint } = await endpointAt(hook.url);
    await recordEvent(ctx.deps, organizationId, "subscription.created", { id: "sub_2", n: 1 });
    await recordEvent(ctx.deps, organizationId, "subscription.updated", { id: "sub_2", n: 2 });
    const delivery = engine();
    await fanOutPending(ctx.deps, delivery);
    await delivery.deliverEndpoint(endpoint.id);
    for (const delay of [5 * SECOND, 5 * MINUTE, 30 * MINUTE, 2 * HOUR]) {
      ctx.clock.advance(delay);
      await delivery.deliverEndpoint(endpoint.id);
    }
    // Five refusals of each event it was sent: the first event only, the second waiting behind it.
    expect(hook.seen.map((seen) => seen.n)).toEqual([1, 1, 1, 1, 1]);
    expect(await rowOf(endpoint.id, "subscription.created", "sub_2")).toMatchObject({ attempts: 5, holds_order: true });

    down = false;
    ctx.clock.advance(5 * HOUR);
    await delivery.deliverEndpoint(endpoint.id);
    expect(hook.seen.slice(5).map((seen) => `${seen.n}:${seen.status}`)).toEqual(["1:200", "2:200"]);
  });
});

describe("redelivery", () => {
  it("sends a settled event again out of band: at once, ahead of its object's waiting events, holding none of them back", async () => {
    const calls = new Map<string, number>();
    // x#2 is refused once; the redelivered x#1 is refused once too.
    const hook = await receiverAnswering((event) => {
      const key = `${event.id}#${event.n}`;
      const call = (calls.get(key) ?? 0) + 1;
      calls.set(key, call);
      return (key === "ord_x#2" && call === 1) || (key === "ord_x#1" && call === 2) ? 500 : 200;
    });
    const { organizationId, endpoint } = await endpointAt(hook.url);
    const token = await createOrganizationToken(ctx.deps, organizationId, ["webhooks:write"]);
    await recordEvent(ctx.deps, organizationId, "order.created", { id: "ord_x", n: 1 });
    await recordEvent(ctx.deps, organizationId, "order.updated", { id: "ord_x", n: 2 });
    const delivery = engine();
    await fanOutPending(ctx.deps, delivery);
    await delivery.deliverEndpoint(endpoint.id);
    const first = await rowOf(endpoint.id, "order.created", "ord_x");

    const response = await ctx.request({ method: "POST", url: `/v1/webhooks/events/${first.id}/redeliver`, token });
    expect(response.statusCode).toBe(202);
    await recordEvent(ctx.deps, organizationId, "order.paid", { id: "ord_x", n: 3 });
    await fanOutPending(ctx.deps, delivery);
    await delivery.deliverEndpoint(endpoint.id);
    const view = () => hook.seen.map((seen) => `${seen.n}:${seen.status}`);
    // The redelivery went at once, although #2 waits for its retry; #3 waits behind #2, not behind the redelivery.
    expect(view()).toEqual(["1:200", "2:500", "1:500"]);
    expect(hook.seen[2]!.webhookId).toBe(first.id);
    expect(await rowOf(endpoint.id, "order.created", "ord_x")).toMatchObject({ status: "pending", attempts: 1, holds_order: false });

    ctx.clock.advance(5 * SECOND);
    await delivery.deliverEndpoint(endpoint.id);
    // #2 then #3 in order; the redelivery's retry, out of band, lands wherever its schedule puts it.
    expect(
      view()
        .slice(3)
        .filter((line) => !line.startsWith("1:")),
    ).toEqual(["2:200", "3:200"]);
    expect(view().slice(3)).toContain("1:200");
    expect((await endpointEvents(endpoint.id)).every((row) => row.status === "succeeded")).toBe(true);
  });
});

describe("an unreachable receiver", () => {
  it("gets fewer than sixteen attempts per retry, not one per object with something pending", async () => {
    // A port nothing listens on: every attempt is refused at the connection.
    const closed = await startReceiver();
    const url = closed.url;
    await closed.close();
    const { organizationId, endpoint } = await endpointAt(url);
    for (let i = 0; i < 40; i += 1) await recordEvent(ctx.deps, organizationId, "order.created", { id: `ord_down_${i}` });
    const delivery = engine();
    await fanOutPending(ctx.deps, delivery);
    const attempts = async () => (await endpointEvents(endpoint.id)).reduce((sum, row) => sum + row.attempts, 0);

    await delivery.deliverEndpoint(endpoint.id);
    const first = await attempts();
    // Eight in a row unreachable stop the run; lanes already past their check add at most seven.
    expect(first).toBeGreaterThanOrEqual(8);
    expect(first).toBeLessThan(16);
    const job = await ctx.deps.db
      .selectFrom("graphile_worker.jobs" as never)
      .select(["run_at" as never])
      .where("key" as never, "=", `webhooks.deliver:${endpoint.id}` as never)
      .executeTakeFirstOrThrow();
    // The endpoint backs off with the earliest retry (5 s), although most events were never tried.
    expect((job as { run_at: Date }).run_at.getTime() - Date.now()).toBeGreaterThan(3 * SECOND);

    ctx.clock.advance(5 * SECOND);
    await delivery.deliverEndpoint(endpoint.id);
    expect((await attempts()) - first).toBeLessThan(16);
  });
});
