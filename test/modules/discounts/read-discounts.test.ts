import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { badInputTable } from "../../helpers/bad-inputs.ts";
import type { TestContext } from "../../helpers/context.ts";
import { createDiscount, createOrganization, openOrganizationContext } from "../../helpers/factories.ts";
import { expectReferenceResponse } from "../../helpers/reference.ts";

let ctx: TestContext;
let orgId: string;
let token: string;
let foreignId: string;
let productsToken: string;
const UNKNOWN = "3f2b1c4d-1111-4222-8333-123456789abc";

beforeAll(async () => {
  ({
    ctx,
    org: { id: orgId },
    tokens: [token, productsToken],
  } = await openOrganizationContext(["discounts:read"], ["products:read"]));
  foreignId = (await createDiscount(ctx.deps, (await createOrganization(ctx.deps)).id, { name: "Foreign" })).id;
  const start = Date.parse("2026-03-01T00:00:00Z");
  for (let i = 0; i < 5; i += 1) {
    await createDiscount(ctx.deps, orgId, {
      name: `Promo ${i}`,
      code: `CODE${i}`,
      redemptions_count: (i * 7) % 5,
      created_at: new Date(start + i * 1000),
    });
  }
  await createDiscount(ctx.deps, orgId, { name: "Deleted", deleted_at: new Date() });
});
afterAll(() => ctx.close());

const get = (url: string, as: string | null = token) => ctx.request({ method: "GET", url, token: as });

describe("GET /v1/discounts/{id}", () => {
  it("answers the discount", async () => {
    const row = await createDiscount(ctx.deps, orgId, {
      type: "fixed",
      basis_points: null,
      amounts: JSON.stringify({ eur: 250 }),
      duration: "repeating",
      duration_in_months: 6,
    });
    const response = await get(`/v1/discounts/${row.id}`);
    expect(response.statusCode).toBe(200);
    expectReferenceResponse("discounts:get", 200, response.json());
    expect(response.json()).toMatchObject({
      id: row.id,
      type: "fixed",
      duration: "repeating",
      duration_in_months: 6,
      amounts: { eur: 250 },
      amount: 250,
      currency: "eur",
      products: [],
    });
  });

  badInputTable(
    () => ctx.request,
    [
      { name: "a non-UUID id", request: () => ({ method: "GET", url: "/v1/discounts/x", token }), status: 422, loc: ["path", "id"] },
      {
        name: "an unknown id",
        request: () => ({ method: "GET", url: `/v1/discounts/${UNKNOWN}`, token }),
        status: 404,
        error: "ResourceNotFound",
      },
      {
        name: "another organization's discount",
        request: () => ({ method: "GET", url: `/v1/discounts/${foreignId}`, token }),
        status: 404,
        error: "ResourceNotFound",
      },
      { name: "no token", request: () => ({ method: "GET", url: `/v1/discounts/${UNKNOWN}` }), status: 401, error: "Unauthorized" },
      {
        name: "a token without a discounts scope",
        request: () => ({ method: "GET", url: `/v1/discounts/${foreignId}`, token: productsToken }),
        status: 403,
        error: "insufficient_scope",
      },
    ],
  );
});

describe("GET /v1/discounts/", () => {
  it("lists live discounts of the organization, newest first", async () => {
    // Promo 0 to Promo 4 were created a second apart, in that order; "Deleted" is deleted.
    const response = await get("/v1/discounts/?query=promo&limit=3");
    expect(response.statusCode).toBe(200);
    expectReferenceResponse("discounts:list", 200, response.json());
    const body = response.json();
    expect(body.pagination).toEqual({ total_count: 5, max_page: 2 });
    const second = (await get("/v1/discounts/?query=promo&limit=3&page=2")).json();
    expect([...body.items, ...second.items].map((d: { name: string }) => d.name)).toEqual([
      "Promo 4",
      "Promo 3",
      "Promo 2",
      "Promo 1",
      "Promo 0",
    ]);
    const all = (await get("/v1/discounts/?limit=100")).json();
    const names = all.items.map((d: { name: string }) => d.name);
    expect(names).not.toContain("Deleted");
    expect(names).not.toContain("Foreign");
    expect(names.filter((name: string) => name.startsWith("Promo"))).toEqual(["Promo 4", "Promo 3", "Promo 2", "Promo 1", "Promo 0"]);
    const createdAt = all.items.map((d: { created_at: string }) => Date.parse(d.created_at));
    expect(createdAt).toEqual([...createdAt].sort((a, b) => b - a));
  });

  it("sorts by redemptions_count then name, and filters by query on name or code", async () => {
    const body = (await get("/v1/discounts/?query=promo&sorting=-redemptions_count&sorting=name")).json();
    // Promo i has (i × 7) mod 5 redemptions: 0, 2, 4, 1, 3.
    expect(body.items.map((d: { name: string; redemptions_count: number }) => `${d.name}:${d.redemptions_count}`)).toEqual([
      "Promo 2:4",
      "Promo 4:3",
      "Promo 1:2",
      "Promo 3:1",
      "Promo 0:0",
    ]);
    expect((await get("/v1/discounts/?query=code3")).json().items.map((d: { code: string }) => d.code)).toEqual(["CODE3"]);
  });

  badInputTable(
    () => ctx.request,
    [
      { name: "limit 0", request: () => ({ method: "GET", url: "/v1/discounts/?limit=0", token }), status: 422, loc: ["query", "limit"] },
      {
        name: "an overlong query",
        request: () => ({ method: "GET", url: `/v1/discounts/?query=${"q".repeat(257)}`, token }),
        status: 422,
        loc: ["query", "query"],
      },
      {
        name: "a non-UUID organization_id",
        request: () => ({ method: "GET", url: "/v1/discounts/?organization_id=nope", token }),
        status: 422,
        loc: ["query", "organization_id", 0],
      },
      {
        name: "an unknown sorting key",
        request: () => ({ method: "GET", url: "/v1/discounts/?sorting=-amount", token }),
        status: 422,
        loc: ["query", "sorting", 0],
      },
      {
        name: "a truncated token",
        request: () => ({ method: "GET", url: "/v1/discounts/", token: ctx.ownerToken.slice(0, 12) }),
        status: 401,
        error: "invalid_token",
      },
      {
        name: "a token of another scope",
        request: () => ({ method: "GET", url: "/v1/discounts/", token: productsToken }),
        status: 403,
        error: "insufficient_scope",
      },
    ],
  );
});
