import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { badInputTable, getRequest, tokenRefusals } from "../../helpers/bad-inputs.ts";
import type { TestContext } from "../../helpers/context.ts";
import { openOrganizationContext } from "../../helpers/factories.ts";
import { expectReferenceResponse } from "../../helpers/reference.ts";

let ctx: TestContext;
let readToken: string;
let writeOnlyToken: string;
let ordersToken: string;
let metersToken: string;

beforeAll(async () => {
  ({
    ctx,
    tokens: [readToken, writeOnlyToken, ordersToken, metersToken],
  } = await openOrganizationContext(["metrics:read"], ["metrics:write"], ["orders:read"], ["meters:write"]));
});
afterAll(() => ctx.close());

describe("GET /v1/metrics/limits", () => {
  const expected = {
    min_date: "2023-01-01",
    intervals: {
      hour: { min_days: 0, max_days: 7 },
      day: { min_days: 0, max_days: 366 },
      week: { min_days: 14, max_days: 371 },
      month: { min_days: 60, max_days: 1460 },
      year: { min_days: 366, max_days: 3650 },
    },
  };

  it("answers the hosted service's limits to an organization token with metrics:read", async () => {
    const response = await ctx.request({ method: "GET", url: "/v1/metrics/limits", token: readToken });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toEqual(expected);
    expectReferenceResponse("metrics:limits", 200, response.json());
  });

  it("answers the same to the owner's personal token", async () => {
    const response = await ctx.request({ method: "GET", url: "/v1/metrics/limits", token: ctx.ownerToken });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toEqual(expected);
  });

  it("publishes the limits meter quantities enforce: a day series of max_days passes, one more day is refused", async () => {
    const meter = await ctx.request({
      method: "POST",
      url: "/v1/meters/",
      token: metersToken,
      payload: {
        name: "calls",
        filter: { conjunction: "and", clauses: [{ property: "name", operator: "eq", value: "call" }] },
        aggregation: { func: "count" },
      },
    });
    expect(meter.statusCode, meter.body).toBe(201);
    const id = meter.json<{ id: string }>().id;
    const quantities = (end: string) =>
      ctx.request({
        method: "GET",
        url: `/v1/meters/${id}/quantities?start_timestamp=2025-01-01T00:00:00Z&end_timestamp=${end}&interval=day`,
        token: metersToken,
      });
    expect((await quantities("2026-01-02T00:00:00Z")).statusCode).toBe(200); // 366 days
    const refused = await quantities("2026-01-02T00:00:01Z");
    expect(refused.statusCode).toBe(422);
    expect(refused.json<{ detail: { loc: string[]; msg: string }[] }>().detail[0]).toMatchObject({
      loc: ["query"],
      msg: "The interval is too small for the given date range. Use a larger interval or reduce the date range.",
    });
  });

  const get = getRequest("/v1/metrics/limits", () => readToken);
  badInputTable(
    () => ctx.request,
    tokenRefusals((as) => get("", as), { "a token with metrics:write only": () => writeOnlyToken, "a token of orders": () => ordersToken }),
  );
});
