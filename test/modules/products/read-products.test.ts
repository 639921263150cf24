import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { badInputTable } from "../../helpers/bad-inputs.ts";
import type { TestContext } from "../../helpers/context.ts";
import { createOrganization, createOrganizationToken, createProduct, openOrganizationContext } from "../../helpers/factories.ts";
import { expectReferenceResponse } from "../../helpers/reference.ts";

let ctx: TestContext;
let orgId: string;
let token: string;
let foreignProductId: string;
let licensedProductId: string;
let otherScopeToken: string;
const UNKNOWN = "3f2b1c4d-1111-4222-8333-123456789abc";

beforeAll(async () => {
  ({
    ctx,
    org: { id: orgId },
    tokens: [token, otherScopeToken],
  } = await openOrganizationContext(["products:read"], ["benefits:read"]));
  foreignProductId = (await createProduct(ctx.deps, (await createOrganization(ctx.deps)).id)).product.id;
  const at = (i: number) => new Date(Date.parse("2026-05-01T00:00:00Z") + i * 1000);
  await createProduct(ctx.deps, orgId, {
    product: { name: "Alpha", created_at: at(0) },
    prices: [{ amount_type: "fixed", price_amount: 3000 }],
  });
  await createProduct(ctx.deps, orgId, {
    product: { name: "Bravo", created_at: at(1), recurring_interval: "month", recurring_interval_count: 1 },
    prices: [{ amount_type: "custom", minimum_amount: 100 }],
  });
  await createProduct(ctx.deps, orgId, {
    product: { name: "Charlie", created_at: at(2), is_archived: true },
    prices: [{ amount_type: "free" }],
  });
  await createProduct(ctx.deps, orgId, {
    product: { name: "Delta", created_at: at(3), visibility: "draft" },
    prices: [{ amount_type: "fixed", price_amount: 1000 }],
  });
  licensedProductId = (
    await createProduct(ctx.deps, orgId, {
      product: { name: "Echo", created_at: at(3) },
      prices: [{ amount_type: "fixed", price_amount: 2000 }],
      benefits: [{ type: "license_keys", description: "Key", properties: { prefix: "E" } }],
    })
  ).product.id;
});
afterAll(() => ctx.close());

const get = (url: string, as: string | null = token) => ctx.request({ method: "GET", url, token: as });
const names = (body: { items: { name: string }[] }) => body.items.map((p) => p.name);

describe("GET /v1/products/{id}", () => {
  it("answers the full product with its benefits", async () => {
    const response = await get(`/v1/products/${licensedProductId}`);
    expect(response.statusCode).toBe(200);
    expectReferenceResponse("products:get", 200, response.json());
    expect(response.json()).toMatchObject({ id: licensedProductId, name: "Echo", attached_custom_fields: [], medias: [] });
    expect(response.json().benefits).toEqual([
      expect.objectContaining({
        type: "license_keys",
        visibility: "public",
        properties: { prefix: "E", expires: null, activations: null, limit_usage: null },
      }),
    ]);
  });

  badInputTable(
    () => ctx.request,
    [
      { name: "a non-UUID id", request: () => ({ method: "GET", url: "/v1/products/abc", token }), status: 422, loc: ["path", "id"] },
      {
        name: "an unknown id",
        request: () => ({ method: "GET", url: `/v1/products/${UNKNOWN}`, token }),
        status: 404,
        error: "ResourceNotFound",
      },
      {
        name: "another organization's product",
        request: () => ({ method: "GET", url: `/v1/products/${foreignProductId}`, token }),
        status: 404,
        error: "ResourceNotFound",
      },
      { name: "no token", request: () => ({ method: "GET", url: `/v1/products/${UNKNOWN}` }), status: 401, error: "Unauthorized" },
      {
        name: "a token without a products scope",
        request: () => ({ method: "GET", url: `/v1/products/${licensedProductId}`, token: otherScopeToken }),
        status: 403,
        error: "insufficient_scope",
      },
    ],
  );
});

describe("GET /v1/products/", () => {
  it("lists the organization's products newest first, with a stable tiebreaker", async () => {
    const response = await get("/v1/products/");
    expect(response.statusCode).toBe(200);
    expectReferenceResponse("products:list", 200, response.json());
    expect(response.json().pagination).toEqual({ total_count: 5, max_page: 1 });
    expect(names(response.json()).slice(2)).toEqual(["Charlie", "Bravo", "Alpha"]);
    const pages = [
      ...names((await get("/v1/products/?limit=2&page=1")).json()),
      ...names((await get("/v1/products/?limit=2&page=2")).json()),
    ];
    expect(new Set(pages).size).toBe(4);
  });

  it("filters by archived, recurring, visibility, benefit, query and id", async () => {
    expect(names((await get("/v1/products/?is_archived=true")).json())).toEqual(["Charlie"]);
    expect(names((await get("/v1/products/?is_recurring=true")).json())).toEqual(["Bravo"]);
    expect(names((await get("/v1/products/?visibility=draft&visibility=private")).json())).toEqual(["Delta"]);
    const benefitId = (await get(`/v1/products/${licensedProductId}`)).json().benefits[0].id;
    expect(names((await get(`/v1/products/?benefit_id=${benefitId}`)).json())).toEqual(["Echo"]);
    expect(names((await get("/v1/products/?query=LT")).json())).toEqual(["Delta"]);
    expect(names((await get(`/v1/products/?id=${licensedProductId}&id=${foreignProductId}`)).json())).toEqual(["Echo"]);
  });

  it("filters by metadata: a key's values OR'd, different keys AND'd, compared as text", async () => {
    const [org, foreign] = [(await createOrganization(ctx.deps)).id, (await createOrganization(ctx.deps)).id];
    const reader = await createOrganizationToken(ctx.deps, org, ["products:read"]);
    const tagged = (owner: string, name: string, metadata: Record<string, string | number | boolean>) =>
      createProduct(ctx.deps, owner, { product: { name, metadata: JSON.stringify(metadata) } });
    await tagged(org, "Gold", { tier: "gold", seats: 5 });
    await tagged(org, "Gold VIP", { tier: "gold", vip: true });
    await tagged(org, "Silver", { tier: "silver" });
    await tagged(org, "Plain", {});
    await tagged(foreign, "Foreign Gold", { tier: "gold" });
    const found = async (query: string) => names((await get(`/v1/products/${query}`, reader)).json()).sort();
    expect(await found("?metadata[tier]=gold")).toEqual(["Gold", "Gold VIP"]);
    expect(await found("?metadata[tier]=gold&metadata[tier]=silver")).toEqual(["Gold", "Gold VIP", "Silver"]);
    expect(await found("?metadata[tier]=gold&metadata[vip]=true")).toEqual(["Gold VIP"]);
    expect(await found("?metadata[seats]=5")).toEqual(["Gold"]);
    expect(await found("?metadata[tier]=platinum")).toEqual([]);
    // `query=gold` alone matches two products; the metadata leaves one.
    const response = await get("/v1/products/?metadata[vip]=true&query=gold", reader);
    expect(response.statusCode, response.body).toBe(200);
    expectReferenceResponse("products:list", 200, response.json());
    expect(response.json().pagination).toEqual({ total_count: 1, max_page: 1 });
  });

  it("sorts by price amount type and by price amount", async () => {
    expect(names((await get("/v1/products/?sorting=price_amount_type&sorting=name")).json())).toEqual([
      "Charlie",
      "Bravo",
      "Alpha",
      "Delta",
      "Echo",
    ]);
    expect(names((await get("/v1/products/?sorting=-price_amount")).json())).toEqual(["Alpha", "Echo", "Delta", "Bravo", "Charlie"]);
  });

  badInputTable(
    () => ctx.request,
    [
      { name: "limit 0", request: () => ({ method: "GET", url: "/v1/products/?limit=0", token }), status: 422, loc: ["query", "limit"] },
      {
        name: "an overlong query",
        request: () => ({ method: "GET", url: `/v1/products/?query=${"q".repeat(257)}`, token }),
        status: 422,
        loc: ["query", "query"],
      },
      {
        name: "an unknown sorting key",
        request: () => ({ method: "GET", url: "/v1/products/?sorting=price", token }),
        status: 422,
        loc: ["query", "sorting", 0],
      },
      {
        name: "a non-boolean is_archived",
        request: () => ({ method: "GET", url: "/v1/products/?is_archived=maybe", token }),
        status: 422,
        loc: ["query", "is_archived"],
      },
      {
        name: "an unknown visibility",
        request: () => ({ method: "GET", url: "/v1/products/?visibility=hidden", token }),
        status: 422,
        loc: ["query", "visibility", 0],
      },
      {
        name: "a non-UUID benefit_id",
        request: () => ({ method: "GET", url: "/v1/products/?benefit_id=1", token }),
        status: 422,
        loc: ["query", "benefit_id", 0],
      },
      { name: "no token", request: () => ({ method: "GET", url: "/v1/products/" }), status: 401, error: "Unauthorized" },
      {
        name: "a list without a products scope",
        request: () => ({ method: "GET", url: "/v1/products/", token: otherScopeToken }),
        status: 403,
        error: "insufficient_scope",
      },
    ],
  );
});
