import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { badInputTable } from "../../helpers/bad-inputs.ts";
import type { TestContext } from "../../helpers/context.ts";
import {
  createDiscount,
  createOrganization,
  createOrganizationToken,
  createProduct,
  openOrganizationContext,
  type ProductWithPrices,
} from "../../helpers/factories.ts";
import { expectReferenceResponse } from "../../helpers/reference.ts";

let ctx: TestContext;
let orgId: string;
let token: string;
let readToken: string;
let foreignToken: string;
let unscopedToken: string;
let first: ProductWithPrices;
let second: ProductWithPrices;
let foreignProductId: string;

beforeAll(async () => {
  ({
    ctx,
    org: { id: orgId },
    tokens: [token, readToken, unscopedToken],
  } = await openOrganizationContext(
    ["checkout_links:write", "custom_fields:write", "products:write"],
    ["checkout_links:read"],
    ["checkouts:read"],
  ));
  const foreignOrg = (await createOrganization(ctx.deps)).id;
  foreignToken = await createOrganizationToken(ctx.deps, foreignOrg, ["checkout_links:write"]);
  foreignProductId = (await createProduct(ctx.deps, foreignOrg)).product.id;
  first = await createProduct(ctx.deps, orgId, { product: { name: "First" } });
  second = await createProduct(ctx.deps, orgId, {
    product: { name: "Second" },
    prices: [{ amount_type: "custom", minimum_amount: 500, maximum_amount: 10_000, preset_amount: 1000 }],
  });
});
afterAll(() => ctx.close());

const create = (payload: unknown, as: string | null = token) =>
  ctx.request({ method: "POST", url: "/v1/checkout-links/", token: as, payload: payload as object });
const created = async (payload: Record<string, unknown>) => {
  const response = await create({ payment_processor: "stripe", ...payload });
  expect(response.statusCode, response.body).toBe(201);
  return response.json<{ id: string; client_secret: string; url: string; [key: string]: unknown }>();
};
const linkRows = async () => ({
  links: await ctx.deps.db.selectFrom("checkout_links").selectAll().orderBy("id").execute(),
  products: await ctx.deps.db.selectFrom("checkout_link_products").selectAll().orderBy("checkout_link_id").orderBy("position").execute(),
  checkouts: (await ctx.deps.db.selectFrom("checkouts").select("id").execute()).length,
});
const visit = (url: string) => ctx.request({ method: "GET", url: url.replace(ctx.deps.config.publicBaseUrl, "") });

describe("POST /v1/checkout-links/", () => {
  it("creates a link over several products, in the reference's shape", async () => {
    const discount = await createDiscount(ctx.deps, orgId, { basis_points: 2000 });
    const body = await created({
      products: [second.product.id, first.product.id],
      label: "Spring",
      discount_id: discount.id,
      success_url: "https://shop.test/thanks?c={CHECKOUT_ID}",
      metadata: { campaign: "spring" },
      allow_discount_codes: false,
    });
    expectReferenceResponse("checkout-links:create", 201, body);
    expect(body).toMatchObject({
      organization_id: orgId,
      payment_processor: "stripe",
      label: "Spring",
      allow_discount_codes: false,
      require_billing_address: false,
      discount_id: discount.id,
      discount: { id: discount.id, basis_points: 2000 },
      seats: null,
      trial_interval: null,
      success_url: "https://shop.test/thanks?c={CHECKOUT_ID}",
      return_url: null,
      metadata: { campaign: "spring" },
      created_at: ctx.clock.now().toISOString(),
      modified_at: null,
    });
    expect(body.client_secret).toMatch(/^polar_cl_/);
    expect(body.url).toBe(`${ctx.deps.config.publicBaseUrl}/v1/checkout-links/${body.client_secret}/redirect`);
    expect((body.products as { id: string; name: string }[]).map((p) => p.name)).toEqual(["Second", "First"]);
  });

  it("takes a single product, or a price standing for its product", async () => {
    expect((await created({ product_id: first.product.id })).products).toMatchObject([{ id: first.product.id }]);
    expect((await created({ product_price_id: second.prices[0]!.id })).products).toMatchObject([{ id: second.product.id }]);
  });

  describe("bad input", () => {
    let before: unknown;
    beforeAll(async () => {
      before = await linkRows();
    });
    const post =
      (payload: Record<string, unknown>, as: () => string | null = () => token) =>
      () => ({ method: "POST" as const, url: "/v1/checkout-links/", token: as(), payload: { payment_processor: "stripe", ...payload } });
    const products = () => [first.product.id];

    badInputTable(
      () => ctx.request,
      [
        { name: "no product at all", request: post({}), status: 422 },
        { name: "an empty product list", request: post({ products: [] }), status: 422 },
        { name: "a non-UUID product", request: post({ products: ["x"] }), status: 422 },
        {
          name: "an unknown product",
          request: post({ products: ["3f2b1c4d-1111-4222-8333-123456789abc"] }),
          status: 422,
          loc: ["body", "products", 0],
        },
        {
          name: "another organization's product",
          request: () => post({ products: [first.product.id, foreignProductId] })(),
          status: 422,
          loc: ["body", "products", 1],
        },
        {
          name: "a product listed twice",
          request: () => post({ products: [first.product.id, first.product.id] })(),
          status: 422,
          loc: ["body", "products", 1],
        },
        {
          name: "an unknown price",
          request: post({ product_price_id: "3f2b1c4d-1111-4222-8333-123456789abc" }),
          status: 422,
          loc: ["body", "product_price_id"],
        },
        { name: "another processor", request: () => post({ products: products(), payment_processor: "paypal" })(), status: 422 },
        {
          name: "an unknown discount",
          request: () => post({ products: products(), discount_id: "3f2b1c4d-1111-4222-8333-123456789abc" })(),
          status: 422,
          loc: ["body", "discount_id"],
        },
        { name: "seats 0", request: () => post({ products: products(), seats: 0 })(), status: 422 },
        { name: "seats as text", request: () => post({ products: products(), seats: "2" })(), status: 422 },
        { name: "a success_url that is no URL", request: () => post({ products: products(), success_url: "thanks" })(), status: 422 },
        { name: "an overlong label", request: () => post({ products: products(), label: "l".repeat(257) })(), status: 422 },
        {
          name: "a trial count of 0",
          request: () => post({ products: products(), trial_interval: "day", trial_interval_count: 0 })(),
          status: 422,
        },
        { name: "no token", request: () => post({ products: products() }, () => null)(), status: 401, error: "Unauthorized" },
        {
          name: "a read-only token",
          request: () => post({ products: products() }, () => readToken)(),
          status: 403,
          error: "insufficient_scope",
        },
      ],
      async () => expect(await linkRows()).toEqual(before),
    );
  });
});

describe("GET /v1/checkout-links/ and /v1/checkout-links/{id}", () => {
  it("lists the organization's links, filtered by product and sorted, and reads one", async () => {
    const listOrg = (await createOrganization(ctx.deps)).id;
    const listToken = await createOrganizationToken(ctx.deps, listOrg, ["checkout_links:write"]);
    const a = (await createProduct(ctx.deps, listOrg)).product.id;
    const b = (await createProduct(ctx.deps, listOrg)).product.id;
    const make = async (label: string, products: string[]) => {
      ctx.clock.advance(1000);
      const response = await create({ payment_processor: "stripe", label, products }, listToken);
      expect(response.statusCode, response.body).toBe(201);
      return response.json<{ id: string }>().id;
    };
    const beta = await make("beta", [a]);
    const alpha = await make("alpha", [a, b]);
    const gamma = await make("gamma", [b]);
    const ids = async (query: string) => {
      const response = await ctx.request({ method: "GET", url: `/v1/checkout-links/${query}`, token: listToken });
      expect(response.statusCode, response.body).toBe(200);
      expectReferenceResponse("checkout-links:list", 200, response.json());
      return response.json<{ items: { id: string }[] }>().items.map((item) => item.id);
    };
    expect(await ids("")).toEqual([beta, alpha, gamma]);
    expect(await ids("?sorting=label")).toEqual([alpha, beta, gamma]);
    expect(await ids(`?product_id=${b}&sorting=-created_at`)).toEqual([gamma, alpha]);
    const page = await ctx.request({ method: "GET", url: "/v1/checkout-links/?limit=2&page=2", token: listToken });
    expect(page.json()).toMatchObject({ items: [{ id: gamma }], pagination: { total_count: 3, max_page: 2 } });

    const read = await ctx.request({ method: "GET", url: `/v1/checkout-links/${alpha}`, token: listToken });
    expectReferenceResponse("checkout-links:get", 200, read.json());
    expect(read.json()).toMatchObject({ id: alpha, label: "alpha" });
    const foreign = await ctx.request({ method: "GET", url: `/v1/checkout-links/${alpha}`, token });
    expect(foreign.statusCode).toBe(404);
    expectReferenceResponse("checkout-links:get", 404, foreign.json());
  });

  badInputTable(
    () => ctx.request,
    [
      {
        name: "a non-UUID id",
        request: () => ({ method: "GET", url: "/v1/checkout-links/nope", token }),
        status: 422,
        loc: ["path", "id"],
      },
      {
        name: "an unknown id",
        request: () => ({ method: "GET", url: "/v1/checkout-links/3f2b1c4d-1111-4222-8333-123456789abc", token }),
        status: 404,
      },
      { name: "an unknown sort key", request: () => ({ method: "GET", url: "/v1/checkout-links/?sorting=url", token }), status: 422 },
      {
        name: "a non-UUID product filter",
        request: () => ({ method: "GET", url: "/v1/checkout-links/?product_id=x", token }),
        status: 422,
      },
      { name: "no token", request: () => ({ method: "GET", url: "/v1/checkout-links/" }), status: 401 },
      {
        name: "a token without the scope",
        request: () => ({ method: "GET", url: "/v1/checkout-links/", token: unscopedToken }),
        status: 403,
      },
    ],
  );
});

describe("PATCH and DELETE /v1/checkout-links/{id}", () => {
  it("updates what the body carries, replaces the products, and clears the discount", async () => {
    const discount = await createDiscount(ctx.deps, orgId);
    const link = await created({ products: [first.product.id], discount_id: discount.id, label: "Before", seats: 3 });
    ctx.clock.advance(2000);
    const response = await ctx.request({
      method: "PATCH",
      url: `/v1/checkout-links/${link.id}`,
      token,
      payload: {
        products: [second.product.id, first.product.id],
        discount_id: null,
        label: null,
        require_billing_address: true,
        allow_discount_codes: null,
      },
    });
    expect(response.statusCode, response.body).toBe(200);
    expectReferenceResponse("checkout-links:update", 200, response.json());
    expect(response.json()).toMatchObject({
      discount_id: null,
      discount: null,
      label: null,
      seats: 3,
      require_billing_address: true,
      allow_discount_codes: true,
      modified_at: ctx.clock.now().toISOString(),
    });
    expect(response.json().products.map((p: { id: string }) => p.id)).toEqual([second.product.id, first.product.id]);
  });

  it("deletes a link: reads and its URL answer 404 from then on", async () => {
    const link = await created({ products: [first.product.id] });
    expect((await ctx.request({ method: "DELETE", url: `/v1/checkout-links/${link.id}`, token: foreignToken })).statusCode).toBe(404);
    const response = await ctx.request({ method: "DELETE", url: `/v1/checkout-links/${link.id}`, token });
    expect(response.statusCode).toBe(204);
    expect((await ctx.request({ method: "GET", url: `/v1/checkout-links/${link.id}`, token })).statusCode).toBe(404);
    expect((await visit(link.url)).statusCode).toBe(404);
  });

  describe("bad input", () => {
    let linkId: string;
    let before: unknown;
    beforeAll(async () => {
      linkId = (await created({ products: [first.product.id] })).id;
      before = await linkRows();
    });
    const patch =
      (payload: unknown, as: () => string | null = () => token, id = () => linkId) =>
      () => ({ method: "PATCH" as const, url: `/v1/checkout-links/${id()}`, token: as(), payload: payload as object });

    badInputTable(
      () => ctx.request,
      [
        {
          name: "a non-UUID id",
          request: patch(
            {},
            () => token,
            () => "nope",
          ),
          status: 422,
          loc: ["path", "id"],
        },
        { name: "another organization's link", request: patch({ label: "x" }, () => foreignToken), status: 404 },
        { name: "an empty product list", request: patch({ products: [] }), status: 422 },
        {
          name: "another organization's product",
          request: () => patch({ products: [foreignProductId] })(),
          status: 422,
          loc: ["body", "products", 0],
        },
        {
          name: "an unknown discount",
          request: patch({ discount_id: "3f2b1c4d-1111-4222-8333-123456789abc" }),
          status: 422,
          loc: ["body", "discount_id"],
        },
        { name: "seats above 10000", request: patch({ seats: 10_001 }), status: 422, loc: ["body", "seats"] },
        { name: "a boolean as text", request: patch({ allow_discount_codes: "yes" }), status: 422 },
        { name: "no token", request: patch({}, () => null), status: 401 },
        { name: "a read-only token", request: patch({}, () => readToken), status: 403 },
        {
          name: "a read-only token (DELETE)",
          request: () => ({ method: "DELETE" as const, url: `/v1/checkout-links/${linkId}`, token: readToken }),
          status: 403,
        },
        {
          name: "a non-UUID id (DELETE)",
          request: () => ({ method: "DELETE" as const, url: "/v1/checkout-links/nope", token }),
          status: 422,
          loc: ["path", "id"],
        },
      ],
      async () => expect(await linkRows()).toEqual(before),
    );
  });
});
