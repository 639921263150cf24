import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  badInputTable,
  getRequest,
  jsonRequest,
  organizationIdRefusals,
  paginationRefusals,
  tokenRefusals,
} from "../../helpers/bad-inputs.ts";
import type { TestContext } from "../../helpers/context.ts";
import { createForeignToken, openOrganizationContext } from "../../helpers/factories.ts";
import { expectReferenceResponse } from "../../helpers/reference.ts";
import { aggregateMeters, ingest, runBackfills } from "./meters-helpers.ts";

let ctx: TestContext;
let orgId: string;
let token: string;
let readToken: string;
let foreignToken: string;
let unscopedToken: string;

beforeAll(async () => {
  ({
    ctx,
    org: { id: orgId },
    tokens: [token, readToken, unscopedToken],
  } = await openOrganizationContext(["meters:write", "events:write", "events:read"], ["meters:read"], ["events:read"]));
  foreignToken = await createForeignToken(ctx.deps, ["meters:write"]);
});
afterAll(() => ctx.close());

const create = (payload: unknown, as: string | null = token) =>
  ctx.request({ method: "POST", url: "/v1/meters/", token: as, payload: payload as object });
const created = async (payload: Record<string, unknown>) => {
  const response = await create(payload);
  expect(response.statusCode, response.body).toBe(201);
  return response.json<{ id: string; [key: string]: unknown }>();
};
const meterRows = async () =>
  (
    await ctx.deps.db
      .selectFrom("meters")
      .select(["id", "name", "filter", "aggregation", "archived_at", "generation"])
      .orderBy("id")
      .execute()
  ).map((row) => JSON.stringify(row));
const tokensFilter = { conjunction: "and", clauses: [{ property: "name", operator: "eq", value: "tokens" }] };

describe("POST /v1/meters/", () => {
  it("creates a meter in the reference's shape, the aggregation's function written out", async () => {
    const filter = {
      conjunction: "and",
      clauses: [
        { property: "name", operator: "eq", value: "llm" },
        {
          conjunction: "or",
          clauses: [
            { property: "metadata.model", operator: "like", value: "gpt" },
            { property: "tier", operator: "gte", value: 2 },
          ],
        },
      ],
    };
    const response = await create({
      name: "LLM tokens",
      filter,
      aggregation: { func: "sum", property: "tokens" },
      metadata: { team: "ai" },
    });
    expect(response.statusCode, response.body).toBe(201);
    expectReferenceResponse("meters:create", 201, response.json());
    expect(response.json()).toEqual({
      id: expect.any(String),
      created_at: ctx.clock.now().toISOString(),
      modified_at: null,
      organization_id: orgId,
      metadata: { team: "ai" },
      name: "LLM tokens",
      unit: "scalar",
      custom_label: null,
      custom_multiplier: null,
      filter,
      aggregation: { func: "sum", property: "tokens" },
      archived_at: null,
    });
    const unique = await created({ name: "Users", filter: tokensFilter, aggregation: { property: "user" } });
    expect(unique.aggregation).toEqual({ func: "unique", property: "user" });
    const count = await created({ name: "Calls", filter: tokensFilter, aggregation: {}, unit: "custom", custom_label: "call" });
    expect(count).toMatchObject({ aggregation: { func: "count" }, unit: "custom", custom_label: "call", custom_multiplier: 1 });
  });

  describe("bad input", () => {
    let before: string[];
    beforeAll(async () => {
      before = await meterRows();
    });
    const post = jsonRequest("POST", "/v1/meters/", () => token);
    const valid = { name: "Meter", filter: tokensFilter, aggregation: { func: "count" } };
    const clause = (c: unknown) => ({ ...valid, filter: { conjunction: "and", clauses: [c] } });
    const deep = (depth: number): unknown =>
      depth === 0 ? { property: "name", operator: "eq", value: "x" } : { conjunction: "and", clauses: [deep(depth - 1)] };
    badInputTable(
      () => ctx.request,
      [
        { name: "no name", request: post({ ...valid, name: undefined }), status: 422, loc: ["body", "name"] },
        { name: "a short name", request: post({ ...valid, name: "ab" }), status: 422, loc: ["body", "name"] },
        { name: "an overlong name", request: post({ ...valid, name: "n".repeat(257) }), status: 422, loc: ["body", "name"] },
        { name: "a name as a number", request: post({ ...valid, name: 5 }), status: 422, loc: ["body", "name"] },
        { name: "no filter", request: post({ ...valid, filter: undefined }), status: 422, loc: ["body", "filter"] },
        {
          name: "an unknown conjunction",
          request: post({ ...valid, filter: { conjunction: "xor", clauses: [] } }),
          status: 422,
          loc: ["body", "filter", "conjunction"],
        },
        { name: "an unknown operator", request: post(clause({ property: "name", operator: "in", value: "a" })), status: 422 },
        {
          name: "an overlong clause value",
          request: post(clause({ property: "name", operator: "eq", value: "v".repeat(1001) })),
          status: 422,
        },
        { name: "a clause value beyond Int32", request: post(clause({ property: "n", operator: "eq", value: 2147483648 })), status: 422 },
        {
          name: "an unknown property (a bare event field)",
          request: post(clause({ property: "customer_id", operator: "eq", value: "a" })),
          status: 422,
          loc: ["body", "filter", "clauses", 0, "property"],
        },
        {
          name: "an empty metadata path segment",
          request: post(clause({ property: "metadata.a..b", operator: "eq", value: "a" })),
          status: 422,
          loc: ["body", "filter", "clauses", 0, "property"],
        },
        {
          name: "a nested unknown property",
          request: post({
            ...valid,
            filter: { conjunction: "or", clauses: [{ conjunction: "and", clauses: [{ property: "", operator: "eq", value: 1 }] }] },
          }),
          status: 422,
          loc: ["body", "filter", "clauses", 0, "clauses", 0, "property"],
        },
        {
          name: "timestamp compared with text",
          request: post(clause({ property: "timestamp", operator: "gt", value: "yesterday" })),
          status: 422,
          loc: ["body", "filter", "clauses", 0, "value"],
        },
        {
          name: "name compared with a number",
          request: post(clause({ property: "name", operator: "eq", value: 3 })),
          status: 422,
          loc: ["body", "filter", "clauses", 0, "value"],
        },
        {
          name: "like with a number",
          request: post(clause({ property: "tier", operator: "like", value: 3 })),
          status: 422,
          loc: ["body", "filter", "clauses", 0, "value"],
        },
        { name: "a filter nested too deep", request: post({ ...valid, filter: deep(6) }), status: 422 },
        { name: "sum without a property", request: post({ ...valid, aggregation: { func: "sum" } }), status: 422 },
        { name: "an unknown function", request: post({ ...valid, aggregation: { func: "median", property: "x" } }), status: 422 },
        {
          name: "sum over a non-numeric column",
          request: post({ ...valid, aggregation: { func: "sum", property: "name" } }),
          status: 422,
          loc: ["body", "aggregation", "property"],
        },
        {
          name: "avg over an unknown property",
          request: post({ ...valid, aggregation: { func: "avg", property: "external_id" } }),
          status: 422,
          loc: ["body", "aggregation", "property"],
        },
        { name: "a custom unit without label", request: post({ ...valid, unit: "custom" }), status: 422, loc: ["body", "custom_label"] },
        { name: "an unknown unit", request: post({ ...valid, unit: "bytes" }), status: 422, loc: ["body", "unit"] },
        { name: "a zero multiplier", request: post({ ...valid, custom_multiplier: 0 }), status: 422, loc: ["body", "custom_multiplier"] },
        {
          name: "overlong metadata",
          request: post({ ...valid, metadata: { k: "v".repeat(501) } }),
          status: 422,
          loc: ["body", "metadata", "k"],
        },
        ...organizationIdRefusals(post, valid),
        ...tokenRefusals((as) => post(valid, as), {
          "a read-only token": () => readToken,
          "a token without meter scopes": () => unscopedToken,
        }),
      ],
      async () => expect(await meterRows()).toEqual(before),
    );
  });
});

describe("GET /v1/meters/ and /v1/meters/{id}", () => {
  it("lists the organization's meters with its filters, and gets one", async () => {
    const own = await created({ name: "Listed zeta", filter: tokensFilter, aggregation: { func: "count" }, metadata: { kind: "listed" } });
    await created({ name: "Listed alpha", filter: tokensFilter, aggregation: { func: "count" }, metadata: { kind: "listed" } });
    const theirs = await create({ name: "Theirs", filter: tokensFilter, aggregation: { func: "count" } }, foreignToken);
    const list = await ctx.request({ method: "GET", url: "/v1/meters/?metadata[kind]=listed", token: readToken });
    expect(list.statusCode, list.body).toBe(200);
    expectReferenceResponse("meters:list", 200, list.json());
    expect(list.json().items.map((m: { name: string }) => m.name)).toEqual(["Listed alpha", "Listed zeta"]);
    expect(list.json().pagination).toEqual({ total_count: 2, max_page: 1 });
    const byQuery = await ctx.request({ method: "GET", url: "/v1/meters/?query=zeta&sorting=-created_at", token: readToken });
    expect(byQuery.json().items.map((m: { id: string }) => m.id)).toEqual([own.id]);
    const got = await ctx.request({ method: "GET", url: `/v1/meters/${own.id}`, token: readToken });
    expect(got.statusCode).toBe(200);
    expectReferenceResponse("meters:get", 200, got.json());
    expect(got.json()).toEqual(own);
    const foreign = await ctx.request({ method: "GET", url: `/v1/meters/${theirs.json().id}`, token: readToken });
    expect(foreign.statusCode).toBe(404);
    expectReferenceResponse("meters:get", 404, foreign.json());
  });

  const list = getRequest("/v1/meters/", () => readToken);
  badInputTable(
    () => ctx.request,
    [
      {
        name: "a non-UUID id",
        request: () => ({ method: "GET", url: "/v1/meters/nope", token: readToken }),
        status: 422,
        loc: ["path", "id"],
      },
      { name: "an unknown sorting", request: list("?sorting=unit"), status: 422 },
      { name: "a bad is_archived", request: list("?is_archived=maybe"), status: 422 },
      ...paginationRefusals(list),
      ...tokenRefusals((as) => list("", as), { "no meter scope": () => unscopedToken }),
    ],
  );
});

describe("PATCH /v1/meters/{id}", () => {
  const patch = (id: string, payload: unknown, as: string | null = token) =>
    ctx.request({ method: "PATCH", url: `/v1/meters/${id}`, token: as, payload: payload as object });

  it("archives and unarchives, renames, and redefines a meter no event feeds yet", async () => {
    const meter = await created({
      name: "Patched",
      filter: { conjunction: "and", clauses: [{ property: "name", operator: "eq", value: "none-yet" }] },
      aggregation: { func: "count" },
    });
    const archived = await patch(meter.id, { is_archived: true, name: "Patched again" });
    expect(archived.statusCode, archived.body).toBe(200);
    expectReferenceResponse("meters:update", 200, archived.json());
    expect(archived.json()).toMatchObject({
      name: "Patched again",
      archived_at: ctx.clock.now().toISOString(),
      modified_at: ctx.clock.now().toISOString(),
    });
    const listed = await ctx.request({ method: "GET", url: "/v1/meters/?is_archived=true", token: readToken });
    expect(listed.json().items.map((m: { id: string }) => m.id)).toContain(meter.id);
    expect((await patch(meter.id, { is_archived: false })).json().archived_at).toBeNull();
    const redefined = await patch(meter.id, { aggregation: { func: "max", property: "tokens" } });
    expect(redefined.statusCode, redefined.body).toBe(200);
    expect(redefined.json().aggregation).toEqual({ func: "max", property: "tokens" });
  });

  it("freezes the filter and aggregation once events count for the meter, aggregated yet or not", async () => {
    const meter = await created({
      name: "Frozen",
      filter: { conjunction: "and", clauses: [{ property: "name", operator: "eq", value: "frozen" }] },
      aggregation: { func: "count" },
    });
    await ingest(ctx, token, [{ name: "frozen", external_customer_id: "cus-f" }]);
    const refused = async () => {
      const response = await patch(meter.id, { aggregation: { func: "sum", property: "n" } });
      expect(response.statusCode).toBe(422);
      expectReferenceResponse("meters:update", 422, response.json());
      expect(response.json().detail[0]).toMatchObject({ loc: ["body", "aggregation"], type: "forbidden" });
    };
    // The event is read raw until the meters:aggregate job adds it to the buckets; it counts either way.
    await refused();
    await aggregateMeters(ctx);
    await refused();
    expect((await patch(meter.id, { name: "Frozen but renamed" })).statusCode).toBe(200);
  });

  it("keeps the filter frozen while the events before the meter are still being back-filled", async () => {
    await ingest(ctx, token, [{ name: "before-meter", external_customer_id: "cus-b" }]);
    const meter = await created({
      name: "Late",
      filter: { conjunction: "and", clauses: [{ property: "name", operator: "eq", value: "before-meter" }] },
      aggregation: { func: "count" },
    });
    const response = await patch(meter.id, { filter: tokensFilter });
    expect(response.statusCode).toBe(422);
    expect(response.json().detail[0]).toMatchObject({ loc: ["body", "filter"], type: "forbidden" });
    await runBackfills(ctx);
  });

  describe("bad input", () => {
    let id: string;
    let before: string[];
    beforeAll(async () => {
      id = (await created({ name: "Bad patch", filter: tokensFilter, aggregation: { func: "count" } })).id;
      before = await meterRows();
    });
    const send =
      (payload: unknown, as: () => string | null = () => token, target = () => id) =>
      () => ({
        method: "PATCH" as const,
        url: `/v1/meters/${target()}`,
        token: as(),
        payload: payload as object,
      });
    badInputTable(
      () => ctx.request,
      [
        { name: "a short name", request: send({ name: "ab" }), status: 422, loc: ["body", "name"] },
        { name: "is_archived as text", request: send({ is_archived: "yes" }), status: 422, loc: ["body", "is_archived"] },
        {
          name: "an unknown filter property",
          request: send({ filter: { conjunction: "and", clauses: [{ property: "id", operator: "eq", value: "x" }] } }),
          status: 422,
          loc: ["body", "filter", "clauses", 0, "property"],
        },
        {
          name: "min over source",
          request: send({ aggregation: { func: "min", property: "source" } }),
          status: 422,
          loc: ["body", "aggregation", "property"],
        },
        { name: "a custom unit without label", request: send({ unit: "custom" }), status: 422, loc: ["body", "custom_label"] },
        {
          name: "a non-UUID id",
          request: send(
            { name: "Fine name" },
            () => token,
            () => "nope",
          ),
          status: 422,
          loc: ["path", "id"],
        },
        {
          name: "an unknown id",
          request: send(
            { name: "Fine name" },
            () => token,
            () => "3f2b1c4d-1111-4222-8333-123456789abc",
          ),
          status: 404,
          error: "ResourceNotFound",
        },
        {
          name: "another organization's meter",
          request: send({ name: "Fine name" }, () => foreignToken),
          status: 404,
          error: "ResourceNotFound",
        },
        ...tokenRefusals((as) => send({ name: "Fine name" }, as), { "a read-only token": () => readToken }),
      ],
      async () => expect(await meterRows()).toEqual(before),
    );
  });
});
