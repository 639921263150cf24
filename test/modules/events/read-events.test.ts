import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { badInputTable } from "../../helpers/bad-inputs.ts";
import { createTestContext, type TestContext } from "../../helpers/context.ts";
import { createCustomer, createOrganization, createOrganizationToken } from "../../helpers/factories.ts";
import { expectReferenceResponse } from "../../helpers/reference.ts";

let ctx: TestContext;
let orgId: string;
let readToken: string;
let otherToken: string;
let customer: { id: string; email: string };
let externalCustomer: { id: string };
const base = new Date("2026-03-01T12:00:00.000Z");
const at = (minutes: number) => new Date(base.getTime() + minutes * 60_000).toISOString();

interface EventBody {
  id: string;
  name: string;
  timestamp: string;
  parent_id: string | null;
  child_count: number;
  customer: { id: string } | null;
  metadata: Record<string, unknown>;
}
interface ListBody {
  items: EventBody[];
  pagination: { total_count: number; max_page: number };
}

/** Ten events of one organization, with a parent named by external id and one by event id. */
beforeAll(async () => {
  ctx = await createTestContext();
  orgId = (await createOrganization(ctx.deps)).id;
  const other = await createOrganization(ctx.deps);
  readToken = await createOrganizationToken(ctx.deps, orgId, ["events:read"]);
  const writeToken = await createOrganizationToken(ctx.deps, orgId, ["events:write"]);
  otherToken = await createOrganizationToken(ctx.deps, other.id, ["events:write"]);
  customer = await createCustomer(ctx.deps, orgId, { name: "Ada", metadata: JSON.stringify({ tier: "gold" }) });
  externalCustomer = await createCustomer(ctx.deps, orgId, { external_id: "ext-7", billing_name: "Ada Ltd", type: "team" });
  const events = [
    { name: "root", customer_id: customer.id, external_id: "root-1", timestamp: at(0), metadata: { plan: "pro", seats: 3, trial: true } },
    { name: "child", customer_id: customer.id, external_id: "child-1", parent_id: "root-1", timestamp: at(1), metadata: { plan: "basic" } },
    {
      name: "child",
      customer_id: customer.id,
      external_id: "child-2",
      parent_id: "root-1",
      timestamp: at(2),
      metadata: { plan: "pro", _cost: { amount: 0.25, currency: "usd" } },
    },
    ...Array.from({ length: 6 }, (_, i) => ({
      name: "api.call",
      external_customer_id: "ext-7",
      timestamp: at(10 + i),
      metadata: { n: i },
    })),
    { name: "orphan", external_customer_id: "nobody", timestamp: at(30) },
  ];
  const response = await ctx.request({ method: "POST", url: "/v1/events/ingest", token: writeToken, payload: { events } });
  expect(response.json()).toEqual({ inserted: 10, duplicates: 0 });
  await ctx.request({
    method: "POST",
    url: "/v1/events/ingest",
    token: otherToken,
    payload: { events: [{ name: "foreign", external_customer_id: "ext-7", timestamp: at(5) }] },
  });
});
afterAll(() => ctx.close());

const list = async (query = "", token: string = readToken): Promise<ListBody> => {
  const response = await ctx.request({ method: "GET", url: `/v1/events/${query}`, token });
  expect(response.statusCode, response.body).toBe(200);
  expectReferenceResponse("events:list", 200, response.json());
  return response.json<ListBody>();
};
const names = (body: ListBody) => body.items.map((e) => e.name);

describe("GET /v1/events/", () => {
  it("lists the organization's events, newest first, ten per page", async () => {
    const body = await list();
    expect(body.pagination).toEqual({ total_count: 10, max_page: 1 });
    expect(body.items.map((e) => e.timestamp)).toEqual([30, 15, 14, 13, 12, 11, 10, 2, 1, 0].map(at));
    expect(names(body)).not.toContain("foreign");
  });

  it("answers the full event shape with its customer, resolved parent and child count", async () => {
    const body = await list("?sorting=timestamp&limit=3");
    const [root, child, child2] = body.items;
    expect(root).toEqual({
      id: expect.any(String),
      timestamp: at(0),
      organization_id: orgId,
      customer_id: customer.id,
      customer: expect.objectContaining({
        id: customer.id,
        type: "individual",
        email: customer.email,
        name: "Ada",
        billing_name: "Ada",
        metadata: { tier: "gold" },
        first_user_event_at: at(0),
        deleted_at: null,
        tax_id: null,
      }),
      external_customer_id: null,
      member_id: null,
      external_member_id: null,
      child_count: 2,
      parent_id: null,
      label: "root",
      name: "root",
      source: "user",
      metadata: { plan: "pro", seats: 3, trial: true },
    });
    expect(child).toMatchObject({ parent_id: root!.id, child_count: 0 });
    expect(child2!.metadata).toEqual({ plan: "pro", _cost: { amount: "0.25", currency: "usd" } });
  });

  it("embeds the customer matched by external id, and none when nobody has it", async () => {
    const body = await list("?external_customer_id=ext-7&limit=1");
    expect(body.items[0]!.customer).toMatchObject({
      id: externalCustomer.id,
      type: "team",
      external_id: "ext-7",
      billing_name: "Ada Ltd",
      first_user_event_at: at(10),
    });
    expect((await list("?name=orphan")).items[0]!.customer).toBeNull();
  });

  it("filters by customer, name (repeated values OR'd), source and a strict time range", async () => {
    expect((await list(`?customer_id=${customer.id}`)).pagination.total_count).toBe(3);
    expect(names(await list("?name=root&name=orphan&sorting=timestamp"))).toEqual(["root", "orphan"]);
    expect((await list("?source=user")).pagination.total_count).toBe(10);
    expect((await list("?source=system")).pagination.total_count).toBe(0);
    const range = await list(
      `?start_timestamp=${encodeURIComponent(at(10))}&end_timestamp=${encodeURIComponent(at(13))}&sorting=timestamp`,
    );
    expect(range.items.map((e) => e.timestamp)).toEqual([at(11), at(12)]);
  });

  it("filters by metadata: values of a key OR'd, keys AND'd, compared as text", async () => {
    expect(names(await list("?metadata[plan]=pro&sorting=timestamp"))).toEqual(["root", "child"]);
    expect((await list("?metadata[plan]=pro&metadata[plan]=basic")).pagination.total_count).toBe(3);
    expect(names(await list("?metadata[plan]=pro&metadata[trial]=true"))).toEqual(["root"]);
    expect((await list("?metadata[n]=4")).pagination.total_count).toBe(1);
  });

  it("searches with query: name, the customer's fields (by id or external id), words of the metadata", async () => {
    const count = async (text: string) => (await list(`?query=${encodeURIComponent(text)}`)).pagination.total_count;
    expect(await count("API.CA")).toBe(6);
    expect(await count("ext-7")).toBe(6);
    expect(await count("ada ltd")).toBe(0);
    expect(await count(customer.email.toUpperCase())).toBe(3);
    expect(await count(customer.id.slice(0, 8))).toBe(3);
    expect(names(await list("?query=basic"))).toEqual(["child"]);
    // Metadata values are words to find; keys are not.
    expect(await count("pro")).toBe(2);
    expect(await count("plan")).toBe(0);
    expect(names(await list("?query=orphan"))).toEqual(["orphan"]);
    // Pattern characters are literal, and another organization's events stay out of reach.
    expect(await count("%")).toBe(0);
    expect(await count("foreign")).toBe(0);
    // With other filters: AND'd.
    expect((await list(`?query=pro&name=child`)).pagination.total_count).toBe(1);
  });

  it("filters the direct children of a parent named by its id", async () => {
    const root = (await list("?name=root")).items[0]!;
    const children = await list(`?parent_id=${root.id}`);
    expect(children.items.map((e) => e.parent_id)).toEqual([root.id, root.id]);
  });

  it("pages with a unique order: pages never overlap, and a page past the end is empty", async () => {
    const first = await list("?limit=4&page=1");
    const second = await list("?limit=4&page=2");
    const third = await list("?limit=4&page=3");
    expect(first.pagination).toEqual({ total_count: 10, max_page: 3 });
    const ids = [...first.items, ...second.items, ...third.items].map((e) => e.id);
    expect(new Set(ids).size).toBe(10);
    expect((await list("?limit=4&page=9")).items).toEqual([]);
  });

  it("caps an oversized limit at 100 instead of refusing it: 101 events take two pages", async () => {
    const org = await createOrganization(ctx.deps);
    const write = await createOrganizationToken(ctx.deps, org.id, ["events:write"]);
    const read = await createOrganizationToken(ctx.deps, org.id, ["events:read"]);
    const events = Array.from({ length: 101 }, (_, i) => ({ name: "capped", external_customer_id: "cap", timestamp: at(i) }));
    const ingested = await ctx.request({ method: "POST", url: "/v1/events/ingest", token: write, payload: { events } });
    expect(ingested.json()).toEqual({ inserted: 101, duplicates: 0 });
    const first = await list("?limit=500", read);
    expect(first.items).toHaveLength(100);
    expect(first.pagination).toEqual({ total_count: 101, max_page: 2 });
    const second = await list("?limit=500&page=2", read);
    expect(second.items).toHaveLength(1);
    expect(new Set([...first.items, ...second.items].map((e) => e.id)).size).toBe(101);
  });

  it("shows the owner every organization, narrowed by organization_id", async () => {
    expect(names(await list("?name=foreign", ctx.ownerToken))).toEqual(["foreign"]);
    expect((await list(`?organization_id=${orgId}`, ctx.ownerToken)).pagination.total_count).toBe(10);
  });

  it("hides other organizations' events even when asked for them", async () => {
    expect((await list("?name=foreign")).items).toEqual([]);
  });

  describe("bad input", () => {
    let noScopeToken: string;
    beforeAll(async () => {
      noScopeToken = await createOrganizationToken(ctx.deps, orgId, ["orders:read"]);
    });
    const get =
      (query: string, token: () => string | null = () => readToken) =>
      () => ({ method: "GET" as const, url: `/v1/events/${query}`, token: token() });
    badInputTable(
      () => ctx.request,
      [
        { name: "limit 0", request: get("?limit=0"), status: 422, loc: ["query", "limit"] },
        { name: "a negative limit", request: get("?limit=-5"), status: 422, loc: ["query", "limit"] },
        { name: "page 0", request: get("?page=0"), status: 422, loc: ["query", "page"] },
        { name: "a non-integer page", request: get("?page=two"), status: 422, loc: ["query", "page"] },
        { name: "an unknown sorting key", request: get("?sorting=name"), status: 422, loc: ["query", "sorting", 0] },
        { name: "a non-UUID customer_id", request: get("?customer_id=abc"), status: 422, loc: ["query", "customer_id", 0] },
        { name: "a non-UUID parent_id", request: get("?parent_id=abc"), status: 422, loc: ["query", "parent_id"] },
        { name: "an overlong query", request: get(`?query=${"q".repeat(257)}`), status: 422, loc: ["query", "query"] },
        { name: "a malformed start_timestamp", request: get("?start_timestamp=yesterday"), status: 422, loc: ["query", "start_timestamp"] },
        { name: "an unknown source", request: get("?source=robot"), status: 422, loc: ["query", "source", 0] },
        { name: "no token", request: get("", () => null), status: 401, error: "Unauthorized" },
        { name: "a token without an events scope", request: get("", () => noScopeToken), status: 403, error: "insufficient_scope" },
      ],
    );
  });
});

describe("GET /v1/events/{id}", () => {
  let eventId: string;
  let foreignId: string;
  beforeAll(async () => {
    eventId = (await list("?name=root")).items[0]!.id;
    foreignId = (await list("?name=foreign", ctx.ownerToken)).items[0]!.id;
  });
  const get = (id: string, token: string | null = readToken) => ctx.request({ method: "GET", url: `/v1/events/${id}`, token });

  it("answers the event, with events:read or events:write", async () => {
    const response = await get(eventId);
    expect(response.statusCode).toBe(200);
    expectReferenceResponse("events:get", 200, response.json());
    expect(response.json()).toMatchObject({ id: eventId, name: "root", child_count: 2, customer: { id: customer.id }, source: "user" });
    const writeToken = await createOrganizationToken(ctx.deps, orgId, ["events:write"]);
    expect((await get(eventId, writeToken)).statusCode).toBe(200);
  });

  it("answers 404 for another organization's event exactly as for an unknown id", async () => {
    const foreign = await get(foreignId);
    const unknown = await get("3f2b1c4d-1111-4222-8333-123456789abc");
    expect(foreign.statusCode).toBe(404);
    expect(foreign.json()).toEqual(unknown.json());
    expect(foreign.json()).toEqual({ error: "ResourceNotFound", detail: "Not found" });
    expectReferenceResponse("events:get", 404, foreign.json());
  });

  describe("bad input", () => {
    let noScopeToken: string;
    beforeAll(async () => {
      noScopeToken = await createOrganizationToken(ctx.deps, orgId, ["orders:read"]);
    });
    badInputTable(
      () => ctx.request,
      [
        {
          name: "a non-UUID id",
          request: () => ({ method: "GET", url: "/v1/events/not-a-uuid", token: readToken }),
          status: 422,
          loc: ["path", "id"],
        },
        {
          name: "an overlong id",
          request: () => ({ method: "GET", url: `/v1/events/${"a".repeat(5000)}`, token: readToken }),
          status: 422,
          loc: ["path", "id"],
        },
        {
          name: "another organization's event",
          request: () => ({ method: "GET", url: `/v1/events/${foreignId}`, token: readToken }),
          status: 404,
          error: "ResourceNotFound",
        },
        { name: "no token", request: () => ({ method: "GET", url: `/v1/events/${eventId}` }), status: 401, error: "Unauthorized" },
        {
          name: "a malformed token",
          request: () => ({ method: "GET", url: `/v1/events/${eventId}`, token: "polar_oat_nope" }),
          status: 401,
          error: "invalid_token",
        },
        {
          name: "a token without an events scope",
          request: () => ({ method: "GET", url: `/v1/events/${eventId}`, token: noScopeToken }),
          status: 403,
          error: "insufficient_scope",
        },
      ],
    );
  });
});
