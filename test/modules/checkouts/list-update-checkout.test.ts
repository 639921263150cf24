import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { badInputTable } from "../../helpers/bad-inputs.ts";
import type { TestContext } from "../../helpers/context.ts";
import {
  createCheckout,
  createCustomer,
  createDiscount,
  createOrganization,
  createOrganizationToken,
  createProduct,
  openOrganizationContext,
  registerForTax,
} from "../../helpers/factories.ts";
import { expectReferenceResponse } from "../../helpers/reference.ts";
import { FR_ADDRESS, eventsFor, writeCounts, openCheckoutThroughApi } from "./checkout-helpers.ts";

let ctx: TestContext;
let orgId: string;
let writeToken: string;
let readToken: string;

beforeAll(async () => {
  ({
    ctx,
    org: { id: orgId },
    tokens: [writeToken, readToken],
  } = await openOrganizationContext(["checkouts:write"], ["checkouts:read"]));
  await registerForTax(ctx.deps, orgId);
});
afterAll(() => ctx.close());

const open = (payload: Record<string, unknown>, token = writeToken) => openCheckoutThroughApi(ctx, token, payload);
const list = (query: string, token: string | null = readToken) => ctx.request({ method: "GET", url: `/v1/checkouts/${query}`, token });
const update = (id: string, payload: unknown, token: string | null = writeToken) =>
  ctx.request({ method: "PATCH", url: `/v1/checkouts/${id}`, token, payload: payload as object });

describe("GET /v1/checkouts/", () => {
  let ids: string[];
  let productA: string;
  let customerId: string;
  let foreignId: string;
  beforeAll(async () => {
    const a = await createProduct(ctx.deps, orgId);
    const b = await createProduct(ctx.deps, orgId);
    productA = a.product.id;
    customerId = (await createCustomer(ctx.deps, orgId, { email: "listed@example.com" })).id;
    ids = [];
    for (const [i, payload] of [
      { products: [a.product.id], customer_email: "zed@example.com" },
      { products: [b.product.id], customer_id: customerId },
      { products: [a.product.id], external_customer_id: "crm-7" },
    ].entries()) {
      ctx.clock.advance(1000 * (i + 1));
      ids.push((await open(payload)).id);
    }
    const other = await createOrganization(ctx.deps);
    const otherToken = await createOrganizationToken(ctx.deps, other.id, ["checkouts:write"]);
    foreignId = (await open({ products: [(await createProduct(ctx.deps, other.id)).product.id] }, otherToken)).id;
  });

  it("lists the organization's sessions newest first, with pagination", async () => {
    const response = await list("");
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expectReferenceResponse("checkouts:list", 200, body);
    expect(body.items.map((c: { id: string }) => c.id)).toEqual([...ids].reverse());
    expect(body.pagination).toEqual({ total_count: 3, max_page: 1 });
    const page2 = (await list("?limit=2&page=2")).json();
    expect(page2.items.map((c: { id: string }) => c.id)).toEqual([ids[0]]);
    expect(page2.pagination).toEqual({ total_count: 3, max_page: 2 });
  });

  it("filters by product, customer, external id, status and email, and sorts", async () => {
    const ofIds = async (query: string) => (await list(query)).json().items.map((c: { id: string }) => c.id);
    expect(await ofIds(`?product_id=${productA}&sorting=created_at`)).toEqual([ids[0], ids[2]]);
    expect(await ofIds(`?customer_id=${customerId}`)).toEqual([ids[1]]);
    expect(await ofIds("?external_customer_id=crm-7")).toEqual([ids[2]]);
    expect(await ofIds("?query=ZED")).toEqual([ids[0]]);
    expect(await ofIds("?status=open&status=expired&sorting=status&sorting=-created_at")).toEqual([...ids].reverse());
    expect(await ofIds("?status=succeeded")).toEqual([]);
  });

  it("never shows another organization's sessions; the owner sees every one", async () => {
    const mine = (await list("")).json().items.map((c: { id: string }) => c.id);
    expect(mine).not.toContain(foreignId);
    const all = (await list("?limit=100", ctx.ownerToken)).json().items.map((c: { id: string }) => c.id);
    expect(all).toEqual(expect.arrayContaining([...ids, foreignId]));
  });

  it("caps a page size above 100 at 100, as every list does", async () => {
    const org = await createOrganization(ctx.deps);
    const product = await createProduct(ctx.deps, org.id);
    for (let i = 0; i < 101; i += 1) await createCheckout(ctx.deps, org.id, { products: [product] });
    const token = await createOrganizationToken(ctx.deps, org.id, ["checkouts:read"]);
    const body = (await list("?limit=1000", token)).json();
    expect(body.items).toHaveLength(100);
    expect(body.pagination).toEqual({ total_count: 101, max_page: 2 });
  });

  badInputTable(
    () => ctx.request,
    [
      {
        name: "a zero limit",
        request: () => ({ method: "GET", url: "/v1/checkouts/?limit=0", token: readToken }),
        status: 422,
        loc: ["query", "limit"],
      },
      {
        name: "a text page",
        request: () => ({ method: "GET", url: "/v1/checkouts/?page=two", token: readToken }),
        status: 422,
        loc: ["query", "page"],
      },
      {
        // An offset past bigint would be a database error; the shared pagination refuses it first.
        name: "a page beyond 2^31 - 1",
        request: () => ({ method: "GET", url: "/v1/checkouts/?page=2147483648", token: readToken }),
        status: 422,
        loc: ["query", "page"],
      },
      {
        name: "seven sort keys (at most six)",
        request: () => ({ method: "GET", url: `/v1/checkouts/?${"sorting=status&".repeat(7)}`, token: readToken }),
        status: 422,
        loc: ["query", "sorting"],
      },
      {
        name: "an unknown sort key",
        request: () => ({ method: "GET", url: "/v1/checkouts/?sorting=amount", token: readToken }),
        status: 422,
      },
      { name: "an unknown status", request: () => ({ method: "GET", url: "/v1/checkouts/?status=paid", token: readToken }), status: 422 },
      {
        name: "a non-UUID product filter",
        request: () => ({ method: "GET", url: "/v1/checkouts/?product_id=x", token: readToken }),
        status: 422,
      },
      { name: "no token", request: () => ({ method: "GET", url: "/v1/checkouts/" }), status: 401, error: "Unauthorized" },
      {
        name: "a token without a checkouts scope",
        request: () => ({ method: "GET", url: "/v1/checkouts/", token: noScope }),
        status: 403,
        error: "insufficient_scope",
      },
    ],
  );
  let noScope: string;
  beforeAll(async () => {
    noScope = await createOrganizationToken(ctx.deps, orgId, ["orders:read"]);
  });
});

describe("PATCH /v1/checkouts/{id}", () => {
  it("updates the merchant's settings and reprices, recording checkout.updated", async () => {
    const product = await createProduct(ctx.deps, orgId, { prices: [{ amount_type: "fixed", price_amount: 10_000 }] });
    const discount = await createDiscount(ctx.deps, orgId, { basis_points: 5000 });
    const session = await open({ products: [product.product.id] });
    const response = await update(session.id, {
      discount_id: discount.id,
      customer_billing_address: FR_ADDRESS,
      metadata: { stage: "two" },
      allow_discount_codes: false,
      success_url: "https://shop.test/thanks",
    });
    expect(response.statusCode, response.body).toBe(200);
    const body = response.json();
    expectReferenceResponse("checkouts:update", 200, body);
    expect(body).toMatchObject({
      discount_id: discount.id,
      discount_amount: 5000,
      net_amount: 5000,
      tax_amount: 1000,
      total_amount: 6000,
      metadata: { stage: "two" },
      allow_discount_codes: false,
      success_url: "https://shop.test/thanks",
    });
    expect(body.modified_at).not.toBeNull();
    expect(await eventsFor(ctx, session.id)).toEqual(["checkout.created", "checkout.updated"]);
  });

  describe("bad input", () => {
    let sessionId: string;
    let foreignSessionId: string;
    let succeededId: string;
    let before: Record<string, number>;
    beforeAll(async () => {
      const product = await createProduct(ctx.deps, orgId);
      sessionId = (await open({ products: [product.product.id] })).id;
      const free = await createProduct(ctx.deps, orgId, { prices: [{ amount_type: "free", price_amount: null }] });
      const done = await open({ products: [free.product.id], customer_email: "x@example.com" });
      expect(
        (await ctx.request({ method: "POST", url: `/v1/checkouts/client/${done.client_secret}/confirm`, payload: {} })).statusCode,
      ).toBe(200);
      succeededId = done.id;
      const other = await createOrganization(ctx.deps);
      const otherToken = await createOrganizationToken(ctx.deps, other.id, ["checkouts:write"]);
      foreignSessionId = (await open({ products: [(await createProduct(ctx.deps, other.id)).product.id] }, otherToken)).id;
      before = await writeCounts(ctx);
    });
    const patch = (id: () => string, payload: unknown, token?: () => string | null) => () => ({
      method: "PATCH" as const,
      url: `/v1/checkouts/${id()}`,
      token: token ? token() : writeToken,
      payload: payload as object,
    });

    badInputTable(
      () => ctx.request,
      [
        {
          name: "another organization's session",
          request: patch(() => foreignSessionId, { customer_name: "x" }),
          status: 404,
          error: "ResourceNotFound",
        },
        {
          name: "an unknown session",
          request: patch(() => "3f2b1c4d-1111-4222-8333-123456789abc", {}),
          status: 404,
          error: "ResourceNotFound",
        },
        { name: "a non-UUID id", request: patch(() => "nope", {}), status: 422, loc: ["path", "id"] },
        { name: "a completed session", request: patch(() => succeededId, { customer_name: "x" }), status: 403, error: "NotOpenCheckout" },
        {
          name: "an unknown discount",
          request: patch(() => sessionId, { discount_id: "3f2b1c4d-1111-4222-8333-123456789abc" }),
          status: 422,
          loc: ["body", "discount_id"],
        },
        {
          name: "a wrong-typed flag",
          request: patch(() => sessionId, { require_billing_address: "yes" }),
          status: 422,
          loc: ["body", "require_billing_address"],
        },
        {
          name: "an overlong embed origin",
          request: patch(() => sessionId, { embed_origin: "x".repeat(2084) }),
          status: 422,
          loc: ["body", "embed_origin"],
        },
        {
          name: "a read-only token",
          request: patch(
            () => sessionId,
            {},
            () => readToken,
          ),
          status: 403,
          error: "insufficient_scope",
        },
        {
          name: "no token",
          request: patch(
            () => sessionId,
            {},
            () => null,
          ),
          status: 401,
          error: "Unauthorized",
        },
      ],
      async () => expect(await writeCounts(ctx)).toEqual(before),
    );
  });
});
