import http from "node:http";
import type { AddressInfo } from "node:net";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../../../src/app.ts";
import { badInputTable } from "../../helpers/bad-inputs.ts";
import { createTestContext, type TestContext } from "../../helpers/context.ts";
import { createCustomer, createOrganization, createOrganizationToken } from "../../helpers/factories.ts";
import { expectReferenceResponse } from "../../helpers/reference.ts";
import { countEvents, createIngestFixture, postEvents, uniqueId } from "./ingest-fixture.ts";

let ctx: TestContext;
let orgId: string;
let writeToken: string;
let customerId: string;
let otherOrgCustomerId: string;

beforeAll(async () => {
  ({ ctx, orgId, writeToken, customerId, otherOrgCustomerId } = await createIngestFixture());
});
afterAll(() => ctx.close());

const ingest = (events: unknown, token: string | null = writeToken) => postEvents(ctx, events, token);
const eventCount = () => countEvents(ctx.deps.db);

describe("POST /v1/events/ingest refusals", () => {
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
      expect.objectContaining({
        loc: ["body", "events", 1, "EventCreateExternalCustomer", "timestamp"],
        type: "timezone_aware",
        msg: "Input should have timezone info",
      }),
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
    const post =
      (payload: () => unknown, token: () => string | null = () => writeToken) =>
      () => ({
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
        {
          name: "an event that is not an object",
          request: post(() => ({ events: [event(), 7] })),
          status: 422,
          loc: ["body", "events", 1, "EventCreateCustomer"],
        },
        {
          name: "a missing name",
          request: post(() => ({ events: [{ customer_id: customerId }] })),
          status: 422,
          loc: ["body", "events", 0, "EventCreateCustomer", "name"],
        },
        {
          name: "a name of the wrong type",
          request: post(() => ({ events: [event({ name: 5 })] })),
          status: 422,
          loc: ["body", "events", 0, "EventCreateCustomer", "name"],
        },
        {
          name: "neither customer key",
          request: post(() => ({ events: [{ name: "x" }] })),
          status: 422,
          loc: ["body", "events", 0, "EventCreateExternalCustomer", "external_customer_id"],
        },
        {
          name: "a non-UUID customer_id",
          request: post(() => ({ events: [event({ customer_id: "c-1" })] })),
          status: 422,
          loc: ["body", "events", 0, "EventCreateCustomer", "customer_id"],
        },
        {
          name: "a non-UUID organization_id",
          request: post(() => ({ events: [event({ organization_id: "org" })] })),
          status: 422,
          loc: ["body", "events", 0, "EventCreateCustomer", "organization_id"],
        },
        {
          name: "an overlong name",
          request: post(() => ({ events: [event({ name: "x".repeat(129) })] })),
          status: 422,
          loc: ["body", "events", 0, "EventCreateCustomer", "name"],
        },
        {
          name: "an overlong metadata string",
          request: post(() => ({ events: [event({ metadata: { k: "v".repeat(501) } })] })),
          status: 422,
          loc: ["body", "events", 0, "EventCreateCustomer", "metadata", "k"],
        },
        {
          name: "an empty metadata string",
          request: post(() => ({ events: [event({ metadata: { k: "" } })] })),
          status: 422,
          loc: ["body", "events", 0, "EventCreateCustomer", "metadata", "k"],
        },
        {
          name: "a nested metadata value",
          request: post(() => ({ events: [event({ metadata: { k: { nested: 1 } } })] })),
          status: 422,
          loc: ["body", "events", 0, "EventCreateCustomer", "metadata", "k"],
        },
        {
          name: "a cost in another currency",
          request: post(() => ({ events: [event({ metadata: { _cost: { amount: 1, currency: "eur" } } })] })),
          status: 422,
          loc: ["body", "events", 0, "EventCreateCustomer", "metadata", "_cost", "currency"],
        },
        {
          name: "an LLM record without tokens",
          request: post(() => ({ events: [event({ metadata: { _llm: { vendor: "v", model: "m" } } })] })),
          status: 422,
          loc: ["body", "events", 0, "EventCreateCustomer", "metadata", "_llm", "input_tokens"],
        },
        {
          name: "a malformed timestamp",
          request: post(() => ({ events: [event({ timestamp: "yesterday" })] })),
          status: 422,
          loc: ["body", "events", 0, "EventCreateCustomer", "timestamp"],
        },
        {
          name: "an external id of the wrong type",
          request: post(() => ({ events: [event({ external_id: 12 })] })),
          status: 422,
          loc: ["body", "events", 0, "EventCreateCustomer", "external_id"],
        },
        {
          name: "organization_id with an organization token",
          request: post(() => ({ events: [event({ organization_id: orgId })] })),
          status: 422,
          loc: ["body", "events", 0, "organization_id"],
        },
        {
          name: "another organization's customer",
          request: post(() => ({ events: [event({ customer_id: otherOrgCustomerId })] })),
          status: 422,
          loc: ["body", "events", 0, "customer_id"],
        },
        {
          name: "a member id (no member exists)",
          request: post(() => ({ events: [event({ member_id: "3f2b1c4d-1111-4222-8333-123456789abc" })] })),
          status: 422,
          loc: ["body", "events", 0, "member_id"],
        },
        {
          name: "malformed JSON",
          request: () => ({
            method: "POST",
            url: "/v1/events/ingest",
            token: writeToken,
            headers: { "content-type": "application/json" },
            payload: '{"events": [',
          }),
          status: 422,
        },
        {
          name: "no token",
          request: post(
            () => ({ events: [event()] }),
            () => null,
          ),
          status: 401,
          error: "Unauthorized",
        },
        {
          name: "an unknown token",
          request: post(
            () => ({ events: [event()] }),
            () => "polar_oat_nope",
          ),
          status: 401,
          error: "invalid_token",
        },
        {
          name: "a token without events:write",
          request: post(
            () => ({ events: [event()] }),
            () => noScopeToken,
          ),
          status: 403,
          error: "insufficient_scope",
        },
        {
          name: "a read-only events token",
          request: post(
            () => ({ events: [event()] }),
            () => readOnlyToken,
          ),
          status: 403,
          error: "insufficient_scope",
        },
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
