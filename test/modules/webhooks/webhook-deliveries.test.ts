import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createWebhookDeliveryService } from "../../../src/modules/webhooks/webhook-delivery.service.ts";
import { badInputTable } from "../../helpers/bad-inputs.ts";
import type { TestContext } from "../../helpers/context.ts";
import { createOrganization, createOrganizationToken, openOrganizationContext } from "../../helpers/factories.ts";
import { expectReferenceResponse } from "../../helpers/reference.ts";
import { createWebhookEndpoint, fanOutPending, recordEvent, startReceiver, type Receiver } from "../../helpers/webhooks.ts";

let ctx: TestContext;
let orgId: string;
let readToken: string;
let writeToken: string;
let otherToken: string;
let noScopeToken: string;
let hook: Receiver;
let okEndpointId: string;
let failingEndpointId: string;
let failingEventId: string;
let start: Date;
const UNKNOWN_ID = "3f2b1c4d-1111-4222-8333-123456789abc";

/**
 * One organization, an endpoint on a receiver that answers 200 and one on a closed port; two
 * events: three deliveries at three distinct times.
 */
beforeAll(async () => {
  ({
    ctx,
    org: { id: orgId },
    tokens: [readToken, writeToken],
  } = await openOrganizationContext(["webhooks:read"], ["webhooks:write"]));
  const other = await createOrganization(ctx.deps);
  otherToken = await createOrganizationToken(ctx.deps, other.id, ["webhooks:write", "webhooks:read"]);
  noScopeToken = await createOrganizationToken(ctx.deps, orgId, ["orders:read"]);
  hook = await startReceiver(() => ({ status: 200, body: "thanks" }));
  okEndpointId = (await createWebhookEndpoint(ctx.deps, orgId, { url: `${hook.url}?ok`, events: ["order.created", "checkout.created"] }))
    .id;
  failingEndpointId = (await createWebhookEndpoint(ctx.deps, orgId, { url: `http://127.0.0.1:1/refused`, events: ["order.created"] })).id;
  const delivery = createWebhookDeliveryService(ctx.deps, { random: () => 0.5 });
  start = ctx.clock.now();
  await recordEvent(ctx.deps, orgId, "order.created", { id: "ord_search_me" });
  await fanOutPending(ctx.deps, delivery);
  await delivery.deliverEndpoint(okEndpointId);
  ctx.clock.advance(1000);
  await delivery.deliverEndpoint(failingEndpointId);
  ctx.clock.advance(60_000);
  await recordEvent(ctx.deps, orgId, "checkout.created", { id: "co_1" });
  await fanOutPending(ctx.deps, delivery);
  await delivery.deliverEndpoint(okEndpointId);
  failingEventId = (
    await ctx.deps.db
      .selectFrom("webhook_endpoint_events")
      .select("id")
      .where("endpoint_id", "=", failingEndpointId)
      .executeTakeFirstOrThrow()
  ).id;
});
afterAll(async () => {
  await hook.close();
  await ctx.close();
});

const list = (query: string, token: string | null = readToken) =>
  ctx.request({ method: "GET", url: `/v1/webhooks/deliveries${query}`, token });
const kinds = (body: { items: { succeeded: boolean; http_code: number | null; webhook_event: { type: string } }[] }) =>
  body.items.map((d) => `${d.webhook_event.type}:${d.succeeded ? "ok" : "failed"}:${d.http_code}`);

describe("GET /v1/webhooks/deliveries", () => {
  it("lists every attempt of the organization, newest first, with its event", async () => {
    const response = await list("");
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expectReferenceResponse("webhooks:list_webhook_deliveries", 200, body);
    expect(kinds(body)).toEqual(["checkout.created:ok:200", "order.created:failed:null", "order.created:ok:200"]);
    expect(body.pagination).toEqual({ total_count: 3, max_page: 1 });
    const [latest] = body.items;
    expect(latest).toMatchObject({ modified_at: null, succeeded: true, http_code: 200, response: "thanks" });
    expect(latest.webhook_event).toMatchObject({
      type: "checkout.created",
      succeeded: true,
      skipped: false,
      is_archived: false,
      last_http_code: 200,
    });
    expect(JSON.parse(latest.webhook_event.payload)).toEqual({
      type: "checkout.created",
      timestamp: expect.any(String),
      data: { id: "co_1" },
    });
    expect(body.items[1].response).toMatch(/ECONNREFUSED/);
  });

  it("filters by endpoint, success, time, code class, event type and text", async () => {
    expect(kinds((await list(`?endpoint_id=${failingEndpointId}`)).json())).toEqual(["order.created:failed:null"]);
    expect(kinds((await list(`?endpoint_id=${failingEndpointId}&endpoint_id=${okEndpointId}&limit=1`)).json())).toEqual([
      "checkout.created:ok:200",
    ]);
    expect(kinds((await list("?succeeded=false")).json())).toEqual(["order.created:failed:null"]);
    expect(kinds((await list("?succeeded=true&http_code_class=2xx")).json())).toEqual(["checkout.created:ok:200", "order.created:ok:200"]);
    expect(kinds((await list("?http_code_class=5xx")).json())).toEqual([]);
    expect(kinds((await list("?event_type=checkout.created")).json())).toEqual(["checkout.created:ok:200"]);
    expect(kinds((await list("?query=ord_search")).json())).toEqual(["order.created:failed:null", "order.created:ok:200"]);
    expect(kinds((await list("?query=100%25_")).json())).toEqual([]);
    const later = new Date(start.getTime() + 30_000).toISOString();
    expect(kinds((await list(`?start_timestamp=${encodeURIComponent(later)}`)).json())).toEqual(["checkout.created:ok:200"]);
    expect(kinds((await list(`?end_timestamp=${encodeURIComponent(later)}`)).json())).toEqual([
      "order.created:failed:null",
      "order.created:ok:200",
    ]);
  });

  it("paginates with a stable order", async () => {
    const pages = [];
    for (let page = 1; page <= 3; page += 1) pages.push(...kinds((await list(`?limit=1&page=${page}`)).json()));
    expect(pages).toEqual(kinds((await list("")).json()));
    expect((await list("?limit=1")).json().pagination).toEqual({ total_count: 3, max_page: 3 });
  });

  it("shows nothing of another organization", async () => {
    expect((await list(`?endpoint_id=${okEndpointId}`, otherToken)).json()).toEqual({
      items: [],
      pagination: { total_count: 0, max_page: 0 },
    });
  });

  badInputTable(
    () => ctx.request,
    [
      {
        name: "a non-UUID endpoint_id",
        request: () => ({ method: "GET", url: "/v1/webhooks/deliveries?endpoint_id=x", token: readToken }),
        status: 422,
      },
      {
        name: "a bad start_timestamp",
        request: () => ({ method: "GET", url: "/v1/webhooks/deliveries?start_timestamp=yesterday", token: readToken }),
        status: 422,
        loc: ["query", "start_timestamp"],
      },
      {
        name: "a non-boolean succeeded",
        request: () => ({ method: "GET", url: "/v1/webhooks/deliveries?succeeded=maybe", token: readToken }),
        status: 422,
        loc: ["query", "succeeded"],
      },
      {
        name: "an unknown code class",
        request: () => ({ method: "GET", url: "/v1/webhooks/deliveries?http_code_class=6xx", token: readToken }),
        status: 422,
        loc: ["query", "http_code_class"],
      },
      {
        name: "an unknown event type",
        request: () => ({ method: "GET", url: "/v1/webhooks/deliveries?event_type=order.exploded", token: readToken }),
        status: 422,
      },
      {
        name: "an overlong query",
        request: () => ({ method: "GET", url: `/v1/webhooks/deliveries?query=${"q".repeat(300)}`, token: readToken }),
        status: 422,
        loc: ["query", "query"],
      },
      {
        name: "a negative limit",
        request: () => ({ method: "GET", url: "/v1/webhooks/deliveries?limit=-1", token: readToken }),
        status: 422,
        loc: ["query", "limit"],
      },
      { name: "no token", request: () => ({ method: "GET", url: "/v1/webhooks/deliveries" }), status: 401, error: "Unauthorized" },
      {
        name: "a token without the scope",
        request: () => ({ method: "GET", url: "/v1/webhooks/deliveries", token: noScopeToken }),
        status: 403,
        error: "insufficient_scope",
      },
    ],
  );
});

describe("POST /v1/webhooks/events/{id}/redeliver", () => {
  const redeliver = (id: string, token: string | null = writeToken) =>
    ctx.request({ method: "POST", url: `/v1/webhooks/events/${id}/redeliver`, token });
  const eventRows = (endpointId: string) =>
    ctx.deps.db
      .selectFrom("webhook_endpoint_events")
      .select(["id", "status", "sequence", "attempts"])
      .where("endpoint_id", "=", endpointId)
      .orderBy("sequence")
      .execute();

  it("queues a delivered event again, out of band after everything recorded, and sends it", async () => {
    const [first] = await eventRows(okEndpointId);
    const before = hook.received.length;
    const response = await redeliver(first!.id);
    expect(response.statusCode).toBe(202);
    expect(response.body).toBe("");
    const rows = await eventRows(okEndpointId);
    expect(rows.at(-1)).toMatchObject({ id: first!.id, status: "pending", attempts: 0 });
    await createWebhookDeliveryService(ctx.deps).deliverEndpoint(okEndpointId);
    expect(hook.received).toHaveLength(before + 1);
    expect(hook.received.at(-1)!.headers["webhook-id"]).toBe(first!.id);
  });

  it("gives concurrent redeliveries distinct places in the queue", async () => {
    const organizationId = (await createOrganization(ctx.deps)).id;
    const token = await createOrganizationToken(ctx.deps, organizationId, ["webhooks:write"]);
    const endpoint = await createWebhookEndpoint(ctx.deps, organizationId, { url: `${hook.url}?many`, events: ["order.created"] });
    for (let i = 0; i < 8; i += 1) await recordEvent(ctx.deps, organizationId, "order.created", { i });
    const delivery = createWebhookDeliveryService(ctx.deps);
    await fanOutPending(ctx.deps, delivery);
    await delivery.deliverEndpoint(endpoint.id);
    const settled = await eventRows(endpoint.id);
    const responses = await Promise.all(settled.map((row) => redeliver(row.id, token)));
    expect(responses.map((r) => r.statusCode)).toEqual(Array(8).fill(202));
    const after = await eventRows(endpoint.id);
    expect(new Set(after.map((r) => r.sequence)).size).toBe(8);
    expect(Math.min(...after.map((r) => r.sequence))).toBeGreaterThan(Math.max(...settled.map((r) => r.sequence)));
    expect(after.every((r) => r.status === "pending")).toBe(true);
  });

  describe("bad input", () => {
    let snapshot: unknown;
    const read = () => eventRows(failingEndpointId);
    beforeAll(async () => {
      snapshot = await read();
    });
    badInputTable(
      () => ctx.request,
      [
        {
          name: "a non-UUID id",
          request: () => ({ method: "POST", url: "/v1/webhooks/events/abc/redeliver", token: writeToken }),
          status: 422,
          loc: ["path", "id"],
        },
        {
          name: "an unknown id",
          request: () => ({ method: "POST", url: `/v1/webhooks/events/${UNKNOWN_ID}/redeliver`, token: writeToken }),
          status: 404,
          error: "ResourceNotFound",
        },
        {
          name: "another organization's event",
          request: () => ({ method: "POST", url: `/v1/webhooks/events/${failingEventId}/redeliver`, token: otherToken }),
          status: 404,
          error: "ResourceNotFound",
        },
        {
          name: "no token",
          request: () => ({ method: "POST", url: `/v1/webhooks/events/${failingEventId}/redeliver` }),
          status: 401,
          error: "Unauthorized",
        },
        {
          name: "a read-only token",
          request: () => ({ method: "POST", url: `/v1/webhooks/events/${failingEventId}/redeliver`, token: readToken }),
          status: 403,
          error: "insufficient_scope",
        },
      ],
      async () => expect(await read()).toEqual(snapshot),
    );
  });
});
