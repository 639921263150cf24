import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { badInputTable } from "../../helpers/bad-inputs.ts";
import type { TestContext } from "../../helpers/context.ts";
import {
  createDiscount,
  createOrganization,
  createOrganizationToken,
  createProduct,
  openOrganizationContext,
} from "../../helpers/factories.ts";
import { expectReferenceResponse } from "../../helpers/reference.ts";

let ctx: TestContext;
let orgId: string;
let token: string;
let productId: string;
let foreignProductId: string;

beforeAll(async () => {
  ({
    ctx,
    org: { id: orgId },
    tokens: [token],
  } = await openOrganizationContext(["discounts:write"]));
  productId = (await createProduct(ctx.deps, orgId, { product: { name: "Restricted", metadata: JSON.stringify({ sku: "R-1" }) } })).product
    .id;
  foreignProductId = (await createProduct(ctx.deps, (await createOrganization(ctx.deps)).id)).product.id;
});
afterAll(() => ctx.close());

const create = (payload: unknown, as: string | null = token) =>
  ctx.request({ method: "POST", url: "/v1/discounts/", token: as, payload: payload as object });
const counts = async () => ({
  discounts: (await ctx.deps.db.selectFrom("discounts").select("id").execute()).length,
  links: (await ctx.deps.db.selectFrom("discount_products").select("discount_id").execute()).length,
});

describe("POST /v1/discounts/", () => {
  it("creates a repeating percentage discount restricted to a product", async () => {
    const response = await create({
      type: "percentage",
      name: "Launch",
      code: "LAUNCH25",
      basis_points: 2500,
      duration: "repeating",
      duration_in_months: 3,
      starts_at: "2026-12-01T00:00:00Z",
      ends_at: "2027-01-01T00:00:00+01:00",
      max_redemptions: 100,
      max_redemptions_per_customer: 1,
      products: [productId, productId],
      metadata: { campaign: "launch" },
    });
    expect(response.statusCode, response.body).toBe(201);
    const body = response.json();
    expectReferenceResponse("discounts:create", 201, body);
    expect(body).toEqual({
      id: expect.any(String),
      created_at: ctx.clock.now().toISOString(),
      modified_at: null,
      organization_id: orgId,
      name: "Launch",
      code: "LAUNCH25",
      type: "percentage",
      basis_points: 2500,
      duration: "repeating",
      duration_in_months: 3,
      starts_at: "2026-12-01T00:00:00.000Z",
      ends_at: "2026-12-31T23:00:00.000Z",
      max_redemptions: 100,
      max_redemptions_per_customer: 1,
      redemptions_count: 0,
      metadata: { campaign: "launch" },
      products: [
        expect.objectContaining({
          id: productId,
          name: "Restricted",
          metadata: { sku: "R-1" },
          is_recurring: false,
          organization_id: orgId,
        }),
      ],
    });
  });

  it("creates a fixed discount with per-currency amounts, emitting the deprecated amount/currency", async () => {
    const response = await create({ type: "fixed", name: "Ten off", duration: "once", amounts: { eur: 900, usd: 1000 } });
    expect(response.statusCode).toBe(201);
    expectReferenceResponse("discounts:create", 201, response.json());
    expect(response.json()).toMatchObject({
      type: "fixed",
      duration: "once",
      amounts: { eur: 900, usd: 1000 },
      amount: 1000,
      currency: "usd",
      code: null,
      products: [],
    });
    expect(response.json()).not.toHaveProperty("duration_in_months");
  });

  it("accepts the deprecated single amount and currency", async () => {
    const response = await create({ type: "fixed", name: "Legacy", duration: "forever", amount: 500, currency: "eur" });
    expect(response.statusCode).toBe(201);
    expect(response.json()).toMatchObject({ amounts: { eur: 500 }, amount: 500, currency: "eur", duration: "forever" });
  });

  it("refuses a code already used in the organization, whatever its case", async () => {
    await createDiscount(ctx.deps, orgId, { code: "SUMMER" });
    const response = await create({ type: "percentage", name: "Dup", code: "summer", basis_points: 10, duration: "once" });
    expect(response.statusCode).toBe(422);
    expectReferenceResponse("discounts:create", 422, response.json());
    expect(response.json().detail).toEqual([
      {
        loc: ["body", "code"],
        msg: "Value error, Discount with this code already exists.",
        type: "value_error",
        input: "summer",
        ctx: { error: {} },
      },
    ]);
  });

  it("lets the unique index decide concurrent creations of one code", async () => {
    const responses = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        create({ type: "percentage", name: `Race ${i}`, code: i % 2 ? "RACE" : "race", basis_points: 100, duration: "once" }),
      ),
    );
    expect(responses.filter((r) => r.statusCode === 201)).toHaveLength(1);
    const refused = responses.filter((r) => r.statusCode === 422);
    expect(refused).toHaveLength(7);
    for (const r of refused) expect(r.json().detail[0].loc).toEqual(["body", "code"]);
  });

  it("accepts the boundaries of basis_points", async () => {
    expect((await create({ type: "percentage", name: "Min", basis_points: 1, duration: "once" })).statusCode).toBe(201);
    expect((await create({ type: "percentage", name: "Max", basis_points: 10_000, duration: "forever" })).statusCode).toBe(201);
  });

  describe("bad input", () => {
    let before: { discounts: number; links: number };
    let readToken: string;
    beforeAll(async () => {
      before = await counts();
      readToken = await createOrganizationToken(ctx.deps, orgId, ["discounts:read"]);
    });
    const post =
      (payload: unknown, as: () => string | null = () => token) =>
      () => ({ method: "POST" as const, url: "/v1/discounts/", token: as(), payload: payload as object });
    const pct = { type: "percentage", name: "Bad", basis_points: 1000, duration: "once" };

    badInputTable(
      () => ctx.request,
      [
        { name: "no type", request: post({ name: "x", basis_points: 10, duration: "once" }), status: 422 },
        { name: "basis_points 0", request: post({ ...pct, basis_points: 0 }), status: 422, loc: ["body", "basis_points"] },
        { name: "basis_points above 10000", request: post({ ...pct, basis_points: 10_001 }), status: 422, loc: ["body", "basis_points"] },
        { name: "basis_points as a string", request: post({ ...pct, basis_points: "10" }), status: 422, loc: ["body", "basis_points"] },
        { name: "an unknown duration", request: post({ ...pct, duration: "weekly" }), status: 422, loc: ["body", "duration"] },
        {
          name: "repeating without months",
          request: post({ ...pct, duration: "repeating" }),
          status: 422,
          loc: ["body", "duration_in_months"],
        },
        {
          name: "months on a once discount",
          request: post({ ...pct, duration_in_months: 2 }),
          status: 422,
          loc: ["body", "duration_in_months"],
        },
        {
          name: "ends_at before starts_at",
          request: post({ ...pct, starts_at: "2027-01-02T00:00:00Z", ends_at: "2027-01-01T00:00:00Z" }),
          status: 422,
          loc: ["body", "ends_at"],
        },
        { name: "a malformed starts_at", request: post({ ...pct, starts_at: "tomorrow" }), status: 422, loc: ["body", "starts_at"] },
        { name: "max_redemptions 0", request: post({ ...pct, max_redemptions: 0 }), status: 422, loc: ["body", "max_redemptions"] },
        { name: "a code with symbols", request: post({ ...pct, code: "NO-WAY!" }), status: 422, loc: ["body", "code"] },
        { name: "a two-character code", request: post({ ...pct, code: "AB" }), status: 422, loc: ["body", "code"] },
        { name: "an overlong code", request: post({ ...pct, code: "A".repeat(257) }), status: 422, loc: ["body", "code"] },
        { name: "an empty name", request: post({ ...pct, name: "" }), status: 422, loc: ["body", "name"] },
        { name: "an overlong name", request: post({ ...pct, name: "n".repeat(257) }), status: 422, loc: ["body", "name"] },
        {
          name: "a fixed discount without amounts",
          request: post({ type: "fixed", name: "F", duration: "once" }),
          status: 422,
          loc: ["body", "amounts"],
        },
        {
          name: "a zero fixed amount",
          request: post({ type: "fixed", name: "F", duration: "once", amounts: { usd: 0 } }),
          status: 422,
          loc: ["body", "amounts", "usd"],
        },
        {
          name: "a negative fixed amount",
          request: post({ type: "fixed", name: "F", duration: "once", amounts: { usd: -5 } }),
          status: 422,
          loc: ["body", "amounts", "usd"],
        },
        {
          name: "an unknown currency",
          request: post({ type: "fixed", name: "F", duration: "once", amounts: { xyz: 100 } }),
          status: 422,
          loc: ["body", "amounts"],
        },
        {
          name: "empty amounts",
          request: post({ type: "fixed", name: "F", duration: "once", amounts: {} }),
          status: 422,
          loc: ["body", "amounts"],
        },
        { name: "a non-UUID product", request: post({ ...pct, products: ["nope"] }), status: 422, loc: ["body", "products", 0] },
        {
          name: "an unknown product",
          request: post({ ...pct, products: ["3f2b1c4d-1111-4222-8333-123456789abc"] }),
          status: 422,
          loc: ["body", "products", 0],
        },
        {
          name: "another organization's product",
          request: post({ ...pct, products: [productId, foreignProductId] }),
          status: 422,
          loc: ["body", "products", 1],
        },
        { name: "no token", request: post(pct, () => null), status: 401, error: "Unauthorized" },
        { name: "a read-only token", request: post(pct, () => readToken), status: 403, error: "insufficient_scope" },
      ],
      async () => expect(await counts()).toEqual(before),
    );
  });
});
