import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { badInputTable } from "../../helpers/bad-inputs.ts";
import type { TestContext } from "../../helpers/context.ts";
import { createOrganization, createOrganizationToken, openOrganizationContext } from "../../helpers/factories.ts";
import { expectReferenceResponse } from "../../helpers/reference.ts";

let ctx: TestContext;
let orgId: string;
let writeToken: string;
let readToken: string;
let foreignBenefitId: string;
let productsToken: string;
const UNKNOWN = "3f2b1c4d-1111-4222-8333-123456789abc";

beforeAll(async () => {
  ({
    ctx,
    org: { id: orgId },
    tokens: [writeToken, readToken, productsToken],
  } = await openOrganizationContext(["benefits:write"], ["benefits:read"], ["products:write"]));
  const other = await createOrganization(ctx.deps);
  const otherToken = await createOrganizationToken(ctx.deps, other.id, ["benefits:write"]);
  foreignBenefitId = (await create({ type: "custom", description: "Theirs", properties: {} }, otherToken)).json().id;
});
afterAll(() => ctx.close());

function create(payload: unknown, token: string | null = writeToken) {
  return ctx.request({ method: "POST", url: "/v1/benefits/", token, payload: payload as object });
}

describe("POST /v1/benefits/ and GET /v1/benefits/{id}", () => {
  it("creates a license_keys benefit with every property, and reads it back", async () => {
    const response = await create({
      type: "license_keys",
      description: "Pro license",
      visibility: "private",
      metadata: { tier: "pro" },
      properties: {
        prefix: "PRO",
        expires: { ttl: 1, timeframe: "year" },
        activations: { limit: 3, enable_customer_admin: true },
        limit_usage: 1000,
      },
    });
    expect(response.statusCode, response.body).toBe(201);
    const body = response.json();
    expectReferenceResponse("benefits:create", 201, body);
    expect(body).toEqual({
      id: expect.any(String),
      created_at: ctx.clock.now().toISOString(),
      modified_at: null,
      type: "license_keys",
      description: "Pro license",
      selectable: true,
      deletable: true,
      is_deleted: false,
      organization_id: orgId,
      metadata: { tier: "pro" },
      visibility: "private",
      visibility_configurable: true,
      properties: {
        prefix: "PRO",
        expires: { ttl: 1, timeframe: "year" },
        activations: { limit: 3, enable_customer_admin: true },
        limit_usage: 1000,
      },
    });
    const read = await ctx.request({ method: "GET", url: `/v1/benefits/${body.id}`, token: readToken });
    expect(read.statusCode).toBe(200);
    expectReferenceResponse("benefits:get", 200, read.json());
    expect(read.json()).toEqual(body);
  });

  it("fills absent license key properties with null, and creates custom benefits", async () => {
    const bare = (await create({ type: "license_keys", description: "Bare key", properties: {} })).json();
    expect(bare.properties).toEqual({ prefix: null, expires: null, activations: null, limit_usage: null });
    expect(bare.visibility).toBe("public");
    const custom = await create({ type: "custom", description: "Support", properties: { note: "Email us" } });
    expect(custom.statusCode).toBe(201);
    expectReferenceResponse("benefits:create", 201, custom.json());
    expect(custom.json()).toMatchObject({ type: "custom", properties: { note: "Email us" } });
  });

  describe("bad input", () => {
    let count: number;
    const benefits = async () => (await ctx.deps.db.selectFrom("benefits").select("id").execute()).length;
    beforeAll(async () => {
      count = await benefits();
    });
    const post =
      (payload: unknown, token: () => string | null = () => writeToken) =>
      () => ({ method: "POST" as const, url: "/v1/benefits/", token: token(), payload: payload as object });
    const lk = (properties: unknown) => ({ type: "license_keys", description: "Key", properties });

    badInputTable(
      () => ctx.request,
      [
        {
          name: "an unsupported type",
          request: post({ type: "discord", description: "Disc", properties: {} }),
          status: 422,
          loc: ["body", "type"],
        },
        { name: "a missing description", request: post({ type: "custom", properties: {} }), status: 422, loc: ["body", "description"] },
        {
          name: "a two-character description",
          request: post({ type: "custom", description: "ab", properties: {} }),
          status: 422,
          loc: ["body", "description"],
        },
        {
          name: "a 43-character description",
          request: post({ type: "custom", description: "d".repeat(43), properties: {} }),
          status: 422,
          loc: ["body", "description"],
        },
        {
          name: "missing properties",
          request: post({ type: "license_keys", description: "Key" }),
          status: 422,
          loc: ["body", "properties"],
        },
        {
          name: "a zero activation limit",
          request: post(lk({ activations: { limit: 0, enable_customer_admin: false } })),
          status: 422,
          loc: ["body", "properties", "activations", "limit"],
        },
        {
          name: "an activation without enable_customer_admin",
          request: post(lk({ activations: { limit: 2 } })),
          status: 422,
          loc: ["body", "properties", "activations", "enable_customer_admin"],
        },
        {
          name: "a zero ttl",
          request: post(lk({ expires: { ttl: 0, timeframe: "day" } })),
          status: 422,
          loc: ["body", "properties", "expires", "ttl"],
        },
        {
          name: "an unknown timeframe",
          request: post(lk({ expires: { ttl: 1, timeframe: "week" } })),
          status: 422,
          loc: ["body", "properties", "expires", "timeframe"],
        },
        { name: "a negative usage limit", request: post(lk({ limit_usage: -1 })), status: 422, loc: ["body", "properties", "limit_usage"] },
        {
          name: "a usage limit beyond int32",
          request: post(lk({ limit_usage: 2 ** 31 })),
          status: 422,
          loc: ["body", "properties", "limit_usage"],
        },
        { name: "an overlong prefix", request: post(lk({ prefix: "P".repeat(65) })), status: 422, loc: ["body", "properties", "prefix"] },
        { name: "a prefix of the wrong type", request: post(lk({ prefix: 12 })), status: 422, loc: ["body", "properties", "prefix"] },
        { name: "an unknown visibility", request: post({ ...lk({}), visibility: "hidden" }), status: 422, loc: ["body", "visibility"] },
        { name: "no token", request: post(lk({}), () => null), status: 401, error: "Unauthorized" },
        { name: "a read-only token", request: post(lk({}), () => readToken), status: 403, error: "insufficient_scope" },
      ],
      async () => expect(await benefits()).toBe(count),
    );

    badInputTable(
      () => ctx.request,
      [
        {
          name: "a non-UUID benefit id",
          request: () => ({ method: "GET", url: "/v1/benefits/1", token: readToken }),
          status: 422,
          loc: ["path", "id"],
        },
        {
          name: "an unknown benefit id",
          request: () => ({ method: "GET", url: `/v1/benefits/${UNKNOWN}`, token: readToken }),
          status: 404,
          error: "ResourceNotFound",
        },
        {
          name: "another organization's benefit",
          request: () => ({ method: "GET", url: `/v1/benefits/${foreignBenefitId}`, token: readToken }),
          status: 404,
          error: "ResourceNotFound",
        },
        {
          name: "a benefit read without a token",
          request: () => ({ method: "GET", url: `/v1/benefits/${UNKNOWN}` }),
          status: 401,
          error: "Unauthorized",
        },
        {
          name: "a benefit read without a benefits scope",
          request: () => ({ method: "GET", url: `/v1/benefits/${foreignBenefitId}`, token: productsToken }),
          status: 403,
          error: "insufficient_scope",
        },
      ],
    );
  });
});
