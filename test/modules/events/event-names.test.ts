import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { badInputTable } from "../../helpers/bad-inputs.ts";
import { createTestContext, type TestContext } from "../../helpers/context.ts";
import { createCustomer, createOrganization, createOrganizationToken } from "../../helpers/factories.ts";
import { expectReferenceResponse } from "../../helpers/reference.ts";

let ctx: TestContext;
let orgId: string;
let otherOrgId: string;
let readToken: string;
let ada: { id: string };
const base = new Date("2026-03-01T12:00:00.000Z");
const at = (minutes: number) => new Date(base.getTime() + minutes * 60_000).toISOString();

interface NamesBody {
  items: { name: string; label: string; source: string; occurrences: number; first_seen: string; last_seen: string }[];
  pagination: { total_count: number; max_page: number };
}

/** Six events of three names in one organization, and one of a shared name in another. */
beforeAll(async () => {
  ctx = await createTestContext();
  orgId = (await createOrganization(ctx.deps)).id;
  otherOrgId = (await createOrganization(ctx.deps)).id;
  readToken = await createOrganizationToken(ctx.deps, orgId, ["events:read"]);
  ada = await createCustomer(ctx.deps, orgId);
  await createCustomer(ctx.deps, orgId, { external_id: "ext-1" });
  const ingest = async (token: string, events: Record<string, unknown>[]) => {
    const response = await ctx.request({ method: "POST", url: "/v1/events/ingest", token, payload: { events } });
    expect(response.json()).toEqual({ inserted: events.length, duplicates: 0 });
  };
  await ingest(await createOrganizationToken(ctx.deps, orgId, ["events:write"]), [
    { name: "api.call", customer_id: ada.id, timestamp: at(0) },
    { name: "api.call", customer_id: ada.id, timestamp: at(1) },
    { name: "api.call", customer_id: ada.id, timestamp: at(2) },
    { name: "API.Export", external_customer_id: "ext-1", timestamp: at(3) },
    { name: "API.Export", external_customer_id: "ext-1", timestamp: at(4) },
    { name: "signup_100%", external_customer_id: "ext-2", timestamp: at(5) },
  ]);
  await ingest(await createOrganizationToken(ctx.deps, otherOrgId, ["events:write"]), [
    { name: "api.call", external_customer_id: "ext-1", timestamp: at(9) },
  ]);
});
afterAll(() => ctx.close());

const list = async (query = "", token: string = readToken): Promise<NamesBody> => {
  const response = await ctx.request({ method: "GET", url: `/v1/events/names${query}`, token });
  expect(response.statusCode, response.body).toBe(200);
  expectReferenceResponse("events:list_names", 200, response.json());
  return response.json<NamesBody>();
};
const names = (body: NamesBody) => body.items.map((item) => item.name);

describe("GET /v1/events/names", () => {
  it("lists each name with its occurrences and first and last times, last seen first", async () => {
    const body = await list();
    expect(body).toEqual({
      items: [
        { name: "signup_100%", label: "signup_100%", source: "user", occurrences: 1, first_seen: at(5), last_seen: at(5) },
        { name: "API.Export", label: "API.Export", source: "user", occurrences: 2, first_seen: at(3), last_seen: at(4) },
        { name: "api.call", label: "api.call", source: "user", occurrences: 3, first_seen: at(0), last_seen: at(2) },
      ],
      pagination: { total_count: 3, max_page: 1 },
    });
  });

  it("sorts by occurrences or first_seen, either way", async () => {
    expect(names(await list("?sorting=-occurrences"))).toEqual(["api.call", "API.Export", "signup_100%"]);
    expect(names(await list("?sorting=occurrences"))).toEqual(["signup_100%", "API.Export", "api.call"]);
    expect(names(await list("?sorting=first_seen"))).toEqual(["api.call", "API.Export", "signup_100%"]);
    expect(names(await list("?sorting=-last_seen&sorting=name"))).toEqual(["signup_100%", "API.Export", "api.call"]);
  });

  it("pages through the names", async () => {
    const second = await list("?sorting=first_seen&limit=1&page=2");
    expect(names(second)).toEqual(["API.Export"]);
    expect(second.pagination).toEqual({ total_count: 3, max_page: 3 });
    expect((await list("?limit=2&page=3")).items).toEqual([]);
  });

  it("filters by customer, external customer, source and text in the name", async () => {
    expect(await list(`?customer_id=${ada.id}`)).toMatchObject({ items: [{ name: "api.call", occurrences: 3 }] });
    expect(names(await list("?external_customer_id=ext-1"))).toEqual(["API.Export"]);
    expect(names(await list("?external_customer_id=ext-1&external_customer_id=ext-2"))).toEqual(["signup_100%", "API.Export"]);
    expect((await list("?source=system")).items).toEqual([]);
    expect(names(await list("?source=user&source=system"))).toHaveLength(3);
    expect(names(await list("?query=api"))).toEqual(["API.Export", "api.call"]);
    // `%` and `_` are the text itself, not patterns.
    expect(names(await list("?query=100%25"))).toEqual(["signup_100%"]);
    expect((await list("?query=a_i")).items).toEqual([]);
  });

  it("counts only the caller's organizations; the owner sees every one, narrowed by organization_id", async () => {
    expect((await list(`?organization_id=${otherOrgId}`)).items).toEqual([]);
    // One name across the owner's organizations is one entry.
    expect((await list("?query=api.call", ctx.ownerToken)).items).toEqual([
      { name: "api.call", label: "api.call", source: "user", occurrences: 4, first_seen: at(0), last_seen: at(9) },
    ]);
    expect(await list(`?organization_id=${otherOrgId}`, ctx.ownerToken)).toMatchObject({
      items: [{ name: "api.call", occurrences: 1, last_seen: at(9) }],
    });
  });

  it("answers with events:write too", async () => {
    expect((await list("", await createOrganizationToken(ctx.deps, orgId, ["events:write"]))).pagination.total_count).toBe(3);
  });

  describe("bad input", () => {
    let noScopeToken: string;
    beforeAll(async () => {
      noScopeToken = await createOrganizationToken(ctx.deps, orgId, ["orders:read"]);
    });
    const get =
      (query: string, token: () => string | null = () => readToken) =>
      () => ({ method: "GET" as const, url: `/v1/events/names${query}`, token: token() });
    badInputTable(
      () => ctx.request,
      [
        { name: "limit 0", request: get("?limit=0"), status: 422, loc: ["query", "limit"] },
        { name: "a negative limit", request: get("?limit=-1"), status: 422, loc: ["query", "limit"] },
        { name: "a non-integer page", request: get("?page=two"), status: 422, loc: ["query", "page"] },
        { name: "an unknown sorting key", request: get("?sorting=timestamp"), status: 422, loc: ["query", "sorting", 0] },
        { name: "a non-UUID customer_id", request: get("?customer_id=abc"), status: 422, loc: ["query", "customer_id", 0] },
        { name: "a non-UUID organization_id", request: get("?organization_id=42"), status: 422, loc: ["query", "organization_id", 0] },
        { name: "an unknown source", request: get("?source=robot"), status: 422, loc: ["query", "source", 0] },
        { name: "an overlong query", request: get(`?query=${"q".repeat(257)}`), status: 422, loc: ["query", "query"] },
        { name: "no token", request: get("", () => null), status: 401, error: "Unauthorized" },
        { name: "a wrong token", request: get("", () => "polar_oat_wrong"), status: 401, error: "invalid_token" },
        { name: "a token without an events scope", request: get("", () => noScopeToken), status: 403, error: "insufficient_scope" },
      ],
    );
  });
});
