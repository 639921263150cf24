import http from "node:http";
import type { AddressInfo } from "node:net";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../../../src/app.ts";
import { SLICE_SIZE } from "../../../src/kit/slices.ts";
import { badInputTable } from "../../helpers/bad-inputs.ts";
import { createTestContext, type TestContext } from "../../helpers/context.ts";
import { createCustomer, createOrganization, createOrganizationToken } from "../../helpers/factories.ts";
import { expectReferenceResponse } from "../../helpers/reference.ts";

let ctx: TestContext;
let orgId: string;
let otherOrgId: string;
let writeToken: string;
let customerId: string;
let otherOrgCustomerId: string;

beforeAll(async () => {
  ctx = await createTestContext();
  orgId = (await createOrganization(ctx.deps)).id;
  otherOrgId = (await createOrganization(ctx.deps)).id;
  writeToken = await createOrganizationToken(ctx.deps, orgId, ["events:write"]);
  customerId = (await createCustomer(ctx.deps, orgId)).id;
  otherOrgCustomerId = (await createCustomer(ctx.deps, otherOrgId)).id;
});
afterAll(() => ctx.close());

const ingest = (events: unknown, token: string | null = writeToken) =>
  ctx.request({ method: "POST", url: "/v1/events/ingest", token, payload: { events } });

const eventCount = async (): Promise<number> => {
  const row = await ctx.deps.db.selectFrom("events").select((eb) => eb.fn.countAll<string>().as("n")).executeTakeFirstOrThrow();
  return Number(row.n);
};

const storedByExternalId = (externalId: string) =>
  ctx.deps.db.selectFrom("events").selectAll().where("external_id", "=", externalId).execute();

const uniqueId = (label: string) => `${label}-${Math.random().toString(36).slice(2)}`;

describe("POST /v1/events/ingest", () => {
  it("stores events of both shapes and answers the counts", async () => {
    const past = new Date(ctx.clock.now().getTime() - 60_000).toISOString();
    const a = uniqueId("a");
    const b = uniqueId("b");
    const response = await ingest([
      { name: "api.call", customer_id: customerId, external_id: a, timestamp: past, metadata: { route: "/x", units: 3, ratio: 0.5, ok: true, _cost: { amount: 12.5, currency: "usd" } } },
      { name: "", external_customer_id: "user_42", external_member_id: "m_1", external_id: b, parent_id: a },
    ]);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toEqual({ inserted: 2, duplicates: 0 });
    expectReferenceResponse("events:ingest", 200, response.json());

    const [first] = await storedByExternalId(a);
    expect(first).toMatchObject({
      organization_id: orgId,
      customer_id: customerId,
      external_customer_id: null,
      name: "api.call",
      source: "user",
      parent_id: null,
      metadata: { route: "/x", units: 3, ratio: 0.5, ok: true, _cost: { amount: "12.5", currency: "usd" } },
    });
    expect(first!.timestamp.toISOString()).toBe(past);
    // An event without a parent is its own root.
    expect(first!.root_id).toBe(first!.id);

    const [second] = await storedByExternalId(b);
    expect(second).toMatchObject({ customer_id: null, external_customer_id: "user_42", external_member_id: "m_1", name: "", parent_id: a, root_id: null });
    // Without a timestamp, the event happened when it was received.
    expect(second!.timestamp.toISOString()).toBe(ctx.clock.now().toISOString());
  });

  it("counts an external id already stored, or repeated in the batch, as a duplicate (the first wins)", async () => {
    const known = uniqueId("known");
    expect((await ingest([{ name: "first", customer_id: customerId, external_id: known }])).json()).toEqual({ inserted: 1, duplicates: 0 });
    const repeated = uniqueId("repeated");
    const response = await ingest([
      { name: "again", customer_id: customerId, external_id: known },
      { name: "one", customer_id: customerId, external_id: repeated },
      { name: "two", customer_id: customerId, external_id: repeated },
    ]);
    expect(response.json()).toEqual({ inserted: 1, duplicates: 2 });
    expect((await storedByExternalId(known)).map((e) => e.name)).toEqual(["first"]);
    expect((await storedByExternalId(repeated)).map((e) => e.name)).toEqual(["one"]);
  });

  it("never dedupes events without an external id", async () => {
    const before = await eventCount();
    const same = { name: "same", customer_id: customerId, external_id: null };
    expect((await ingest([same, same, { name: "same", customer_id: customerId }])).json()).toEqual({ inserted: 3, duplicates: 0 });
    expect(await eventCount()).toBe(before + 3);
  });

  it("scopes external ids by organization: the same id in two organizations is two events", async () => {
    const shared = uniqueId("shared");
    const otherToken = await createOrganizationToken(ctx.deps, otherOrgId, ["events:write"]);
    expect((await ingest([{ name: "x", external_customer_id: "u", external_id: shared }])).json()).toEqual({ inserted: 1, duplicates: 0 });
    expect((await ingest([{ name: "x", external_customer_id: "u", external_id: shared }], otherToken)).json()).toEqual({ inserted: 1, duplicates: 0 });
    expect((await storedByExternalId(shared)).map((e) => e.organization_id).sort()).toEqual([orgId, otherOrgId].sort());
  });

  it("inserts each event once when the same batch is sent 10 times in parallel", async () => {
    const batch = Array.from({ length: 200 }, (_, i) => ({ name: "parallel", customer_id: customerId, external_id: `parallel-${i}` }));
    const responses = await Promise.all(Array.from({ length: 10 }, () => ingest(batch)));
    const bodies = responses.map((r) => {
      expect(r.statusCode, r.body).toBe(200);
      return r.json() as { inserted: number; duplicates: number };
    });
    expect(bodies.reduce((sum, b) => sum + b.inserted, 0)).toBe(200);
    expect(bodies.reduce((sum, b) => sum + b.duplicates, 0)).toBe(1800);
    const stored = await ctx.deps.db.selectFrom("events").select("external_id").where("external_id", "like", "parallel-%").execute();
    expect(stored).toHaveLength(200);
  });

  it("does not deadlock when parallel batches share external ids in opposite orders", async () => {
    const ids = Array.from({ length: 300 }, (_, i) => `crossed-${i}`);
    const forward = ids.map((external_id) => ({ name: "crossed", customer_id: customerId, external_id }));
    const backward = [...forward].reverse();
    const responses = await Promise.all([ingest(forward), ingest(backward), ingest(forward), ingest(backward)]);
    expect(responses.map((r) => r.statusCode)).toEqual([200, 200, 200, 200]);
    expect(responses.reduce((sum, r) => sum + (r.json() as { inserted: number }).inserted, 0)).toBe(300);
  });

  it("validates and stores a batch larger than one validation slice", async () => {
    const count = SLICE_SIZE * 2 + 321;
    const events = Array.from({ length: count }, (_, i) => ({ name: "bulk", external_customer_id: `u${i % 7}`, external_id: `bulk-${i}` }));
    expect((await ingest(events)).json()).toEqual({ inserted: count, duplicates: 0 });
    const bad = events.map((e, i) => (i === SLICE_SIZE + 5 ? { ...e, external_id: `fresh-${i}`, timestamp: "2025-01-01T00:00:00" } : { ...e, external_id: `fresh-${i}` }));
    const before = await eventCount();
    const response = await ingest(bad);
    expect(response.statusCode).toBe(422);
    expect(response.json().detail).toEqual([
      expect.objectContaining({ loc: ["body", "events", SLICE_SIZE + 5, "EventCreateCustomer", "customer_id"], type: "missing" }),
      expect.objectContaining({ loc: ["body", "events", SLICE_SIZE + 5, "EventCreateCustomer", "timestamp"], type: "timezone_aware" }),
      expect.objectContaining({ loc: ["body", "events", SLICE_SIZE + 5, "EventCreateExternalCustomer", "timestamp"], type: "timezone_aware" }),
    ]);
    expect(await eventCount()).toBe(before);
  });

  it("accepts an external customer id nobody has yet", async () => {
    const id = uniqueId("waiting");
    expect((await ingest([{ name: "early", external_customer_id: "not-yet-a-customer", external_id: id }])).statusCode).toBe(200);
    expect(await storedByExternalId(id)).toHaveLength(1);
  });

  it("takes an event carrying both customer keys as the customer_id shape, as the reference's union does", async () => {
    const id = uniqueId("both");
    expect((await ingest([{ name: "both", customer_id: customerId, external_customer_id: "ignored", external_id: id }])).statusCode).toBe(200);
    expect((await storedByExternalId(id))[0]).toMatchObject({ customer_id: customerId, external_customer_id: null });
  });

  describe("with the instance owner's personal token", () => {
    it("requires organization_id and stores the event there", async () => {
      const id = uniqueId("owner");
      const response = await ingest([{ name: "owner", customer_id: otherOrgCustomerId, organization_id: otherOrgId, external_id: id }], ctx.ownerToken);
      expect(response.json()).toEqual({ inserted: 1, duplicates: 0 });
      expect((await storedByExternalId(id))[0]!.organization_id).toBe(otherOrgId);
    });

    it("answers 422 `missing` without organization_id", async () => {
      const response = await ingest([{ name: "x", customer_id: customerId }], ctx.ownerToken);
      expect(response.statusCode).toBe(422);
      expect(response.json()).toEqual({
        error: "RequestValidationError",
        detail: [{ loc: ["body", "events", 0, "organization_id"], msg: "organization_id is required.", type: "missing", input: null }],
      });
      expectReferenceResponse("events:ingest", 422, response.json());
    });

    it("answers 422 for an unknown organization", async () => {
      const unknown = "3f2b1c4d-1111-4222-8333-123456789abc";
      const response = await ingest([{ name: "x", external_customer_id: "u", organization_id: unknown }], ctx.ownerToken);
      expect(response.statusCode).toBe(422);
      expect(response.json().detail).toEqual([
        { loc: ["body", "events", 0, "organization_id"], msg: "Organization not found.", type: "organization_id", input: unknown },
      ]);
    });
  });

  it("rejects the whole batch for one bad event, pointing at it, and stores nothing", async () => {
    const before = await eventCount();
    const events = Array.from({ length: 20 }, (_, i) => ({ name: `ok-${i}`, customer_id: customerId, external_id: uniqueId("atomic") }));
    events[17] = { ...events[17]!, name: "n".repeat(129) };
    const response = await ingest(events);
    expect(response.statusCode).toBe(422);
    const body = response.json();
    expectReferenceResponse("events:ingest", 422, body);
    // Both shapes of the union are reported, each naming itself, as the reference does.
    expect(body.detail).toEqual([
      {
        loc: ["body", "events", 17, "EventCreateCustomer", "name"],
        msg: "String should have at most 128 characters",
        type: "string_too_long",
        input: "n".repeat(129),
        ctx: { max_length: 128 },
      },
      expect.objectContaining({ loc: ["body", "events", 17, "EventCreateExternalCustomer", "external_customer_id"], type: "missing" }),
      {
        loc: ["body", "events", 17, "EventCreateExternalCustomer", "name"],
        msg: "String should have at most 128 characters",
        type: "string_too_long",
        input: "n".repeat(129),
        ctx: { max_length: 128 },
      },
    ]);
    expect(await eventCount()).toBe(before);
  });

  it("collects the errors of every event, and refuses a valid event beside an unknown customer", async () => {
    const before = await eventCount();
    const unknownCustomer = "3f2b1c4d-1111-4222-8333-123456789abc";
    const response = await ingest([
      { name: "fine", customer_id: customerId },
      { name: "ghost", customer_id: unknownCustomer },
      { name: "foreign", customer_id: otherOrgCustomerId },
    ]);
    expect(response.statusCode).toBe(422);
    expect(response.json().detail).toEqual([
      { loc: ["body", "events", 1, "customer_id"], msg: "Customer not found.", type: "customer_id", input: unknownCustomer },
      { loc: ["body", "events", 2, "customer_id"], msg: "Customer not found.", type: "customer_id", input: otherOrgCustomerId },
    ]);
    expect(await eventCount()).toBe(before);
  });

  it("refuses a deleted customer like an unknown one", async () => {
    const deleted = await createCustomer(ctx.deps, orgId, { deleted_at: new Date() });
    const response = await ingest([{ name: "x", customer_id: deleted.id }]);
    expect(response.statusCode).toBe(422);
    expect(response.json().detail[0]).toMatchObject({ loc: ["body", "events", 0, "customer_id"], type: "customer_id" });
  });

  it("refuses a timestamp in the future and a timestamp without zone, naming the shape", async () => {
    const future = new Date(ctx.clock.now().getTime() + 60_000).toISOString();
    const response = await ingest([
      { name: "late", customer_id: customerId, timestamp: future },
      { name: "naive", external_customer_id: "u", timestamp: "2025-01-01T10:00:00" },
    ]);
    expect(response.statusCode).toBe(422);
    const detail = response.json().detail as { loc: unknown[]; type: string; msg: string }[];
    expect(detail).toContainEqual({
      loc: ["body", "events", 0, "EventCreateCustomer", "timestamp"],
      msg: "Value error, Timestamp must be in the past.",
      type: "value_error",
      input: future,
      ctx: { error: {} },
    });
    expect(detail).toContainEqual(
      expect.objectContaining({ loc: ["body", "events", 1, "EventCreateExternalCustomer", "timestamp"], type: "timezone_aware", msg: "Input should have timezone info" }),
    );
  });

  it("answers 411 to a POST without Content-Length (a chunked body)", async () => {
    const server = await buildApp(ctx.deps, { logger: false });
    await server.listen({ port: 0, host: "127.0.0.1" });
    try {
      const { port } = server.server.address() as AddressInfo;
      const before = await eventCount();
      const response = await new Promise<{ status: number; body: string }>((resolve, reject) => {
        const request = http.request(
          {
            host: "127.0.0.1",
            port,
            method: "POST",
            path: "/v1/events/ingest",
            headers: { authorization: `Bearer ${writeToken}`, "content-type": "application/json", "transfer-encoding": "chunked" },
          },
          (res) => {
            let body = "";
            res.on("data", (chunk: Buffer) => (body += chunk.toString()));
            res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
          },
        );
        request.on("error", reject);
        request.end(JSON.stringify({ events: [{ name: "chunked", customer_id: customerId }] }));
      });
      expect(response.status).toBe(411);
      expect(JSON.parse(response.body)).toEqual({ error: "LengthRequired", detail: "Content-Length header is required." });
      expect(await eventCount()).toBe(before);
    } finally {
      await server.close();
    }
  });

  describe("bad input", () => {
    let noScopeToken: string;
    let readOnlyToken: string;
    let rowsBefore = 0;
    beforeAll(async () => {
      noScopeToken = await createOrganizationToken(ctx.deps, orgId, ["orders:read"]);
      readOnlyToken = await createOrganizationToken(ctx.deps, orgId, ["events:read"]);
      rowsBefore = await eventCount();
    });
    // Payloads and tokens are built when each case runs: their ids are created after the table is declared.
    const post = (payload: () => unknown, token: () => string | null = () => writeToken) => () => ({
      method: "POST" as const,
      url: "/v1/events/ingest",
      token: token(),
      payload: payload() as object,
    });
    const event = (extra: Record<string, unknown> = {}) => ({ name: "x", customer_id: customerId, ...extra });

    badInputTable(
      () => ctx.request,
      [
        { name: "a body that is not an object", request: post(() => [1, 2]), status: 422, loc: ["body"] },
        { name: "no events key", request: post(() => ({})), status: 422, loc: ["body", "events"] },
        { name: "events that are not a list", request: post(() => ({ events: "nope" })), status: 422, loc: ["body", "events"] },
        { name: "an event that is not an object", request: post(() => ({ events: [event(), 7] })), status: 422, loc: ["body", "events", 1, "EventCreateCustomer"] },
        { name: "a missing name", request: post(() => ({ events: [{ customer_id: customerId }] })), status: 422, loc: ["body", "events", 0, "EventCreateCustomer", "name"] },
        { name: "a name of the wrong type", request: post(() => ({ events: [event({ name: 5 })] })), status: 422, loc: ["body", "events", 0, "EventCreateCustomer", "name"] },
        { name: "neither customer key", request: post(() => ({ events: [{ name: "x" }] })), status: 422, loc: ["body", "events", 0, "EventCreateExternalCustomer", "external_customer_id"] },
        { name: "a non-UUID customer_id", request: post(() => ({ events: [event({ customer_id: "c-1" })] })), status: 422, loc: ["body", "events", 0, "EventCreateCustomer", "customer_id"] },
        { name: "a non-UUID organization_id", request: post(() => ({ events: [event({ organization_id: "org" })] })), status: 422, loc: ["body", "events", 0, "EventCreateCustomer", "organization_id"] },
        { name: "an overlong name", request: post(() => ({ events: [event({ name: "x".repeat(129) })] })), status: 422, loc: ["body", "events", 0, "EventCreateCustomer", "name"] },
        { name: "an overlong metadata string", request: post(() => ({ events: [event({ metadata: { k: "v".repeat(501) } })] })), status: 422, loc: ["body", "events", 0, "EventCreateCustomer", "metadata", "k"] },
        { name: "an empty metadata string", request: post(() => ({ events: [event({ metadata: { k: "" } })] })), status: 422, loc: ["body", "events", 0, "EventCreateCustomer", "metadata", "k"] },
        { name: "a nested metadata value", request: post(() => ({ events: [event({ metadata: { k: { nested: 1 } } })] })), status: 422, loc: ["body", "events", 0, "EventCreateCustomer", "metadata", "k"] },
        { name: "a cost in another currency", request: post(() => ({ events: [event({ metadata: { _cost: { amount: 1, currency: "eur" } } })] })), status: 422, loc: ["body", "events", 0, "EventCreateCustomer", "metadata", "_cost", "currency"] },
        { name: "an LLM record without tokens", request: post(() => ({ events: [event({ metadata: { _llm: { vendor: "v", model: "m" } } })] })), status: 422, loc: ["body", "events", 0, "EventCreateCustomer", "metadata", "_llm", "input_tokens"] },
        { name: "a malformed timestamp", request: post(() => ({ events: [event({ timestamp: "yesterday" })] })), status: 422, loc: ["body", "events", 0, "EventCreateCustomer", "timestamp"] },
        { name: "an external id of the wrong type", request: post(() => ({ events: [event({ external_id: 12 })] })), status: 422, loc: ["body", "events", 0, "EventCreateCustomer", "external_id"] },
        { name: "organization_id with an organization token", request: post(() => ({ events: [event({ organization_id: orgId })] })), status: 422, loc: ["body", "events", 0, "organization_id"] },
        { name: "another organization's customer", request: post(() => ({ events: [event({ customer_id: otherOrgCustomerId })] })), status: 422, loc: ["body", "events", 0, "customer_id"] },
        { name: "a member id (no member exists)", request: post(() => ({ events: [event({ member_id: "3f2b1c4d-1111-4222-8333-123456789abc" })] })), status: 422, loc: ["body", "events", 0, "member_id"] },
        { name: "malformed JSON", request: () => ({ method: "POST", url: "/v1/events/ingest", token: writeToken, headers: { "content-type": "application/json" }, payload: "{\"events\": [" }), status: 422 },
        { name: "no token", request: post(() => ({ events: [event()] }), () => null), status: 401, error: "Unauthorized" },
        { name: "an unknown token", request: post(() => ({ events: [event()] }), () => "polar_oat_nope"), status: 401, error: "invalid_token" },
        { name: "a token without events:write", request: post(() => ({ events: [event()] }), () => noScopeToken), status: 403, error: "insufficient_scope" },
        { name: "a read-only events token", request: post(() => ({ events: [event()] }), () => readOnlyToken), status: 403, error: "insufficient_scope" },
      ],
      async () => expect(await eventCount()).toBe(rowsBefore),
    );

    it("answers `organization_token` when an organization token names an organization", async () => {
      const response = await ingest([event({ organization_id: orgId })]);
      expect(response.json()).toEqual({
        error: "RequestValidationError",
        detail: [
          {
            loc: ["body", "events", 0, "organization_id"],
            msg: "Setting organization_id is disallowed when using an organization token.",
            type: "organization_token",
            input: orgId,
          },
        ],
      });
    });

    it("accepts an explicit null organization_id with an organization token", async () => {
      expect((await ingest([event({ organization_id: null })])).statusCode).toBe(200);
    });
  });
});

describe("POST /v1/events/ingest body limit", () => {
  let small: TestContext;
  beforeAll(async () => {
    small = await createTestContext({ env: { BODY_LIMIT_BYTES: "2048" } });
  });
  afterAll(() => small.close());

  it("answers 413 past the limit and stores nothing, while a batch under it passes", async () => {
    const org = await createOrganization(small.deps);
    const token = await createOrganizationToken(small.deps, org.id, ["events:write"]);
    const send = (count: number) =>
      small.request({
        method: "POST",
        url: "/v1/events/ingest",
        token,
        payload: { events: Array.from({ length: count }, (_, i) => ({ name: "n", external_customer_id: "u", external_id: `e-${i}` })) },
      });
    expect((await send(10)).json()).toEqual({ inserted: 10, duplicates: 0 });
    const response = await send(200);
    expect(response.statusCode).toBe(413);
    expect(response.json()).toEqual({ error: "RequestBodyTooLarge", detail: "Request body is too large. Max allowed size is 2048 bytes." });
    const { rows } = await sql<{ n: string }>`SELECT count(*) AS n FROM events`.execute(small.deps.db);
    expect(Number(rows[0]!.n)).toBe(10);
  });
});
