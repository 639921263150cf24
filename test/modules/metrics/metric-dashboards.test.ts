import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { badInputTable, getRequest, jsonRequest, tokenRefusals, type BadInputCase } from "../../helpers/bad-inputs.ts";
import type { TestContext } from "../../helpers/context.ts";
import { createForeignToken, openOrganizationContext } from "../../helpers/factories.ts";
import { expectReferenceResponse } from "../../helpers/reference.ts";

/** Saved metrics dashboards: `/v1/metrics/dashboards` and `/{id}`. */
let ctx: TestContext;
let org: { id: string };
let readToken: string;
let writeToken: string;
let ordersToken: string;
let foreignWriteToken: string;
let foreignDashboardId: string;

beforeAll(async () => {
  ({
    ctx,
    org,
    tokens: [readToken, writeToken, ordersToken],
  } = await openOrganizationContext(["metrics:read"], ["metrics:write"], ["orders:read"]));
  foreignWriteToken = await createForeignToken(ctx.deps, ["metrics:write", "metrics:read"]);
  foreignDashboardId = (await create({ name: "Theirs", metrics: ["revenue"] }, foreignWriteToken)).json<{ id: string }>().id;
});
afterAll(() => ctx.close());

const URL = "/v1/metrics/dashboards";
const create = (payload: unknown, token: string | null = writeToken) =>
  ctx.request({ method: "POST", url: URL, token, payload: payload as object });
const dashboardCount = async () => (await ctx.deps.db.selectFrom("metric_dashboards").select("id").execute()).length;

describe("metric dashboards", () => {
  it("creates (201), lists, reads, updates only the fields sent, and deletes (204) a dashboard", async () => {
    const created = await create({ name: "Growth", metrics: ["monthly_recurring_revenue", "churn_rate"] });
    expect(created.statusCode, created.body).toBe(201);
    const dashboard = created.json();
    expectReferenceResponse("metrics:create_dashboard", 201, dashboard);
    expect(dashboard).toEqual({
      created_at: expect.any(String),
      modified_at: null,
      id: expect.any(String),
      name: "Growth",
      metrics: ["monthly_recurring_revenue", "churn_rate"],
      organization_id: org.id,
    });

    const listed = await ctx.request({ method: "GET", url: URL, token: readToken });
    expect(listed.statusCode).toBe(200);
    expectReferenceResponse("metrics:list_dashboards", 200, listed.json());
    expect(listed.json()).toEqual([dashboard]);

    const read = await ctx.request({ method: "GET", url: `${URL}/${dashboard.id}`, token: readToken });
    expectReferenceResponse("metrics:get_dashboard", 200, read.json());
    expect(read.json()).toEqual(dashboard);

    const renamed = await ctx.request({
      method: "PATCH",
      url: `${URL}/${dashboard.id}`,
      token: writeToken,
      payload: { name: "Growth 2026" },
    });
    expect(renamed.statusCode).toBe(200);
    expectReferenceResponse("metrics:update_dashboard", 200, renamed.json());
    expect(renamed.json()).toMatchObject({
      name: "Growth 2026",
      metrics: ["monthly_recurring_revenue", "churn_rate"],
      modified_at: expect.any(String),
    });
    const remetered = await ctx.request({
      method: "PATCH",
      url: `${URL}/${dashboard.id}`,
      token: writeToken,
      payload: { metrics: [], name: null },
    });
    expect(remetered.json()).toMatchObject({ name: "Growth 2026", metrics: [] });

    const deleted = await ctx.request({ method: "DELETE", url: `${URL}/${dashboard.id}`, token: writeToken });
    expect(deleted.statusCode).toBe(204);
    expect(deleted.body).toBe("");
    expect((await ctx.request({ method: "GET", url: `${URL}/${dashboard.id}`, token: readToken })).statusCode).toBe(404);
    expect((await ctx.request({ method: "DELETE", url: `${URL}/${dashboard.id}`, token: writeToken })).statusCode).toBe(404);
  });

  it("lists oldest first, only the caller's organization's, and filters by organization_id", async () => {
    const first = (await create({ name: "A" })).json();
    // Created a second later: the test clock stands still, and equal times would order by id.
    ctx.clock.advance(1_000);
    const second = (await create({ name: "B", metrics: ["orders"] })).json();
    expect(first.metrics).toEqual([]);
    const ids = async (query: string, token = readToken) =>
      (await ctx.request({ method: "GET", url: `${URL}${query}`, token })).json<{ id: string }[]>().map((dashboard) => dashboard.id);
    expect(await ids("")).toEqual([first.id, second.id]);
    expect(await ids(`?organization_id=${org.id}`)).toEqual([first.id, second.id]);
    expect(await ids("?organization_id=6f1c1a37-6c43-4c55-9d3d-5a4f2a0b7e11")).toEqual([]);
    expect(await ids("", foreignWriteToken)).toEqual([foreignDashboardId]);
  });

  it("lets the instance owner create in a named organization, and requires it", async () => {
    const named = await create({ name: "Owner's", organization_id: org.id }, ctx.ownerToken);
    expect(named.statusCode).toBe(201);
    expect(named.json().organization_id).toBe(org.id);
    const unnamed = await create({ name: "Nowhere" }, ctx.ownerToken);
    expect(unnamed.statusCode).toBe(422);
    expect(unnamed.json().detail[0].loc).toEqual(["body", "organization_id"]);
  });

  it("names the unknown slugs, sorted, in the 422", async () => {
    const response = await create({ name: "Typos", metrics: ["revenue", "zeta", "alpha", "zeta"] });
    expect(response.json().detail).toEqual([
      expect.objectContaining({ loc: ["body", "metrics"], msg: "Value error, Invalid metric slugs: alpha, zeta", type: "value_error" }),
    ]);
  });
});

describe("metric dashboards: bad input", () => {
  let ownId: string;
  beforeAll(async () => {
    ownId = (await create({ name: "Kept", metrics: ["revenue"] })).json<{ id: string }>().id;
  });
  const post = jsonRequest("POST", URL, () => writeToken);
  const patch =
    (id: () => string, payload: unknown, as: () => string | null = () => writeToken): BadInputCase["request"] =>
    () => ({
      method: "PATCH",
      url: `${URL}/${id()}`,
      token: as(),
      payload: payload as object,
    });
  const at =
    (method: "GET" | "DELETE", id: () => string, as: () => string | null): BadInputCase["request"] =>
    () => ({
      method,
      url: `${URL}/${id()}`,
      token: as(),
    });
  const list = getRequest(URL, () => readToken);
  const eleven = Array.from({ length: 11 }, () => "revenue");

  badInputTable(
    () => ctx.request,
    [
      ...tokenRefusals((as) => list("", as), { "a token of orders (list)": () => ordersToken }),
      ...tokenRefusals((as) => post({ name: "X" }, as), { "a read-only token (create)": () => readToken }),
      {
        name: "a PATCH with a read-only token",
        request: patch(
          () => ownId,
          { name: "X" },
          () => readToken,
        ),
        status: 403,
        error: "insufficient_scope",
      },
      {
        name: "a DELETE with a read-only token",
        request: at(
          "DELETE",
          () => ownId,
          () => readToken,
        ),
        status: 403,
        error: "insufficient_scope",
      },
      { name: "a non-UUID organization filter", request: list("?organization_id=nope"), status: 422, loc: ["query", "organization_id"] },
      { name: "a missing name", request: post({ metrics: ["revenue"] }), status: 422, loc: ["body", "name"] },
      { name: "an empty name", request: post({ name: "" }), status: 422, loc: ["body", "name"] },
      { name: "an overlong name", request: post({ name: "x".repeat(257) }), status: 422, loc: ["body", "name"] },
      { name: "a name of the wrong type", request: post({ name: 7 }), status: 422, loc: ["body", "name"] },
      { name: "metrics that are not a list", request: post({ name: "X", metrics: "revenue" }), status: 422, loc: ["body", "metrics"] },
      { name: "more than 10 metrics", request: post({ name: "X", metrics: eleven }), status: 422, loc: ["body", "metrics"] },
      { name: "an unknown metric slug", request: post({ name: "X", metrics: ["revenue", "nope"] }), status: 422, loc: ["body", "metrics"] },
      {
        name: "a non-UUID organization_id",
        request: post({ name: "X", organization_id: "nope" }),
        status: 422,
        loc: ["body", "organization_id"],
      },
      {
        name: "another organization's id with an organization token",
        request: post({ name: "X", organization_id: "6f1c1a37-6c43-4c55-9d3d-5a4f2a0b7e11" }),
        status: 422,
        loc: ["body", "organization_id"],
      },
      { name: "a PATCH with an empty name", request: patch(() => ownId, { name: "" }), status: 422, loc: ["body", "name"] },
      { name: "a PATCH with an unknown slug", request: patch(() => ownId, { metrics: ["nope"] }), status: 422, loc: ["body", "metrics"] },
      { name: "a PATCH with 11 metrics", request: patch(() => ownId, { metrics: eleven }), status: 422, loc: ["body", "metrics"] },
      {
        name: "a non-UUID id (GET)",
        request: at(
          "GET",
          () => "nope",
          () => readToken,
        ),
        status: 422,
        loc: ["path", "id"],
      },
      { name: "a non-UUID id (PATCH)", request: patch(() => "nope", { name: "X" }), status: 422, loc: ["path", "id"] },
      {
        name: "another organization's dashboard (GET)",
        request: at(
          "GET",
          () => foreignDashboardId,
          () => readToken,
        ),
        status: 404,
        error: "ResourceNotFound",
      },
      {
        name: "another organization's dashboard (PATCH)",
        request: patch(() => foreignDashboardId, { name: "Mine" }),
        status: 404,
        error: "ResourceNotFound",
      },
      {
        name: "another organization's dashboard (DELETE)",
        request: at(
          "DELETE",
          () => foreignDashboardId,
          () => writeToken,
        ),
        status: 404,
        error: "ResourceNotFound",
      },
      {
        name: "an unknown dashboard",
        request: at(
          "GET",
          () => "6f1c1a37-6c43-4c55-9d3d-5a4f2a0b7e11",
          () => readToken,
        ),
        status: 404,
        error: "ResourceNotFound",
      },
    ],
    async () => {
      const kept = await ctx.request({ method: "GET", url: `${URL}/${ownId}`, token: readToken });
      expect(kept.json()).toMatchObject({ name: "Kept", metrics: ["revenue"], modified_at: null });
      const theirs = await ctx.request({ method: "GET", url: `${URL}/${foreignDashboardId}`, token: foreignWriteToken });
      expect(theirs.json()).toMatchObject({ name: "Theirs" });
    },
  );

  it("writes nothing for a refused create", async () => {
    const before = await dashboardCount();
    expect((await create({ name: "X", metrics: ["nope"] })).statusCode).toBe(422);
    expect(await dashboardCount()).toBe(before);
  });
});
