import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { badInputTable } from "../../helpers/bad-inputs.ts";
import type { TestContext } from "../../helpers/context.ts";
import { createOrganization, createOrganizationToken, openOrganizationContext } from "../../helpers/factories.ts";
import { expectReferenceResponse } from "../../helpers/reference.ts";
import { ingest } from "../meters/meters-helpers.ts";

let ctx: TestContext;
let token: string;
let foreignMeter: string;
let tokensMeter: string;
let countMeter: string;

const filterOf = (clauses: unknown[], conjunction = "and") => ({ conjunction, clauses });

beforeAll(async () => {
  ({
    ctx,
    tokens: [token],
  } = await openOrganizationContext(["meters:write", "events:write", "events:read"]));
  const foreign = await createOrganizationToken(ctx.deps, (await createOrganization(ctx.deps)).id, ["meters:write"]);
  const meter = async (filter: unknown, aggregation: unknown, as = token) => {
    const response = await ctx.request({
      method: "POST",
      url: "/v1/meters/",
      token: as,
      payload: { name: "Listing", filter, aggregation },
    });
    expect(response.statusCode, response.body).toBe(201);
    return response.json<{ id: string }>().id;
  };
  tokensMeter = await meter(filterOf([{ property: "name", operator: "eq", value: "llm" }]), { func: "sum", property: "tokens" });
  countMeter = await meter(filterOf([{ property: "model", operator: "like", value: "gpt" }]), { func: "count" });
  foreignMeter = await meter(filterOf([]), { func: "count" }, foreign);
  await ingest(ctx, token, [
    {
      name: "llm",
      external_customer_id: "a",
      external_id: "e1",
      timestamp: "2026-03-01T00:00:00Z",
      metadata: { tokens: 5, model: "gpt-5" },
    },
    {
      name: "llm",
      external_customer_id: "a",
      external_id: "e2",
      timestamp: "2026-03-01T00:01:00Z",
      metadata: { tokens: "many", model: "claude" },
    },
    { name: "llm", external_customer_id: "b", external_id: "e3", timestamp: "2026-03-01T00:02:00Z", metadata: { model: "gpt-4" } },
    { name: "other", external_customer_id: "b", external_id: "e4", timestamp: "2026-03-01T00:03:00Z", metadata: { tokens: 9, tier: 2 } },
  ]);
});
afterAll(() => ctx.close());

const list = async (query: string) => {
  const response = await ctx.request({ method: "GET", url: `/v1/events/?sorting=timestamp&${query}`, token });
  expect(response.statusCode, response.body).toBe(200);
  expectReferenceResponse("events:list", 200, response.json());
  return response
    .json<{ items: { metadata: Record<string, string | number | boolean>; name: string }[] }>()
    .items.map((e) => `${e.name}:${String(e.metadata.tokens ?? "-")}`);
};
const encoded = (filter: unknown) => encodeURIComponent(JSON.stringify(filter));

describe("GET /v1/events/ with meter_id and filter", () => {
  it("lists the events a meter counts: its filter, and a numeric property where its function needs one", async () => {
    expect(await list(`meter_id=${tokensMeter}`)).toEqual(["llm:5"]);
    expect(await list(`meter_id=${countMeter}`)).toEqual(["llm:5", "llm:-"]);
  });

  it("lists the events a filter matches, with the anchor's comparisons", async () => {
    expect(await list(`filter=${encoded(filterOf([{ property: "tokens", operator: "gte", value: 5 }]))}`)).toEqual(["llm:5", "other:9"]);
    // A string compares with a number's text; a missing key matches nothing, even `ne`.
    expect(await list(`filter=${encoded(filterOf([{ property: "metadata.tier", operator: "eq", value: "2" }]))}`)).toEqual(["other:9"]);
    expect(await list(`filter=${encoded(filterOf([{ property: "model", operator: "ne", value: "claude" }]))}`)).toEqual(["llm:5", "llm:-"]);
    const nested = filterOf(
      [
        { property: "name", operator: "eq", value: "other" },
        filterOf([
          { property: "model", operator: "not_like", value: "gpt" },
          { property: "timestamp", operator: "lt", value: Date.parse("2026-03-01T00:01:30Z") / 1000 },
        ]),
      ],
      "or",
    );
    expect(await list(`filter=${encoded(nested)}`)).toEqual(["llm:many", "other:9"]);
    expect(await list(`filter=${encoded(filterOf([]))}&meter_id=${tokensMeter}`)).toEqual(["llm:5"]);
  });

  const get = (query: string) => () => ({ method: "GET" as const, url: `/v1/events/?${query}`, token });
  badInputTable(
    () => ctx.request,
    [
      { name: "an unknown meter", request: get("meter_id=3f2b1c4d-1111-4222-8333-123456789abc"), status: 422, loc: ["query", "meter_id"] },
      { name: "another organization's meter", request: () => get(`meter_id=${foreignMeter}`)(), status: 422, loc: ["query", "meter_id"] },
      { name: "a non-UUID meter", request: get("meter_id=nope"), status: 422, loc: ["query", "meter_id"] },
      { name: "a filter that is not JSON", request: get("filter=%7Bnope"), status: 422, loc: [] },
      { name: "a filter without clauses", request: get(`filter=${encoded({ conjunction: "and" })}`), status: 422, loc: ["clauses"] },
      {
        name: "a filter with an unknown operator",
        request: get(`filter=${encoded(filterOf([{ property: "name", operator: "in", value: "x" }]))}`),
        status: 422,
      },
      {
        name: "a filter with an unknown property",
        request: get(`filter=${encoded(filterOf([{ property: "external_id", operator: "eq", value: "x" }]))}`),
        status: 422,
        loc: ["clauses", 0, "property"],
      },
      { name: "an overlong filter", request: get(`filter=${"x".repeat(20_001)}`), status: 422, loc: ["query", "filter"] },
    ],
  );
});
