import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { badInputTable } from "../../helpers/bad-inputs.ts";
import type { TestContext } from "../../helpers/context.ts";
import { createOrganizationToken, openOrganizationContext } from "../../helpers/factories.ts";
import { expectReferenceResponse } from "../../helpers/reference.ts";

let ctx: TestContext;
let orgId: string;
let token: string;
const METER = "7d3c1a2b-3c4d-4e5f-8a9b-0c1d2e3f4a5b";

beforeAll(async () => {
  ({
    ctx,
    org: { id: orgId },
    tokens: [token],
  } = await openOrganizationContext(["products:write"]));
});
afterAll(() => ctx.close());

const create = (payload: unknown, as: string | null = token) =>
  ctx.request({ method: "POST", url: "/v1/products/", token: as, payload: payload as object });
const counts = async () => ({
  products: (await ctx.deps.db.selectFrom("products").select("id").execute()).length,
  prices: (await ctx.deps.db.selectFrom("product_prices").select("id").execute()).length,
});

describe("POST /v1/products/", () => {
  it("creates a recurring product with a trial and one price of each kind", async () => {
    const response = await create({
      name: "Team plan",
      description: "For teams",
      visibility: "private",
      recurring_interval: "month",
      recurring_interval_count: 3,
      trial_interval: "week",
      trial_interval_count: 2,
      metadata: { sku: "TEAM" },
      prices: [
        { amount_type: "fixed", price_amount: 4900, price_currency: "usd", tax_behavior: "exclusive" },
        { amount_type: "custom", price_currency: "eur", minimum_amount: 500, maximum_amount: 10_000, preset_amount: 2000 },
        {
          amount_type: "seat_based",
          price_currency: "gbp",
          seat_tiers: {
            tiers: [
              { min_seats: 1, max_seats: 5, price_per_seat: 1000 },
              { min_seats: 6, price_per_seat: 800 },
            ],
          },
        },
        { amount_type: "metered_unit", meter_id: METER, unit_amount: "0.05", cap_amount: 100_000 },
      ],
    });
    expect(response.statusCode, response.body).toBe(201);
    const body = response.json();
    expectReferenceResponse("products:create", 201, body);
    const now = ctx.clock.now().toISOString();
    expect(body).toMatchObject({
      created_at: now,
      modified_at: null,
      name: "Team plan",
      description: "For teams",
      visibility: "private",
      recurring_interval: "month",
      recurring_interval_count: 3,
      trial_interval: "week",
      trial_interval_count: 2,
      meter_interval: null,
      meter_interval_count: null,
      is_recurring: true,
      is_archived: false,
      organization_id: orgId,
      metadata: { sku: "TEAM" },
      benefits: [],
      medias: [],
      attached_custom_fields: [],
    });
    const common = { created_at: now, modified_at: null, source: "catalog", is_archived: false, product_id: body.id };
    expect(body.prices).toEqual([
      { ...common, id: expect.any(String), amount_type: "fixed", price_currency: "usd", tax_behavior: "exclusive", price_amount: 4900 },
      {
        ...common,
        id: expect.any(String),
        amount_type: "custom",
        price_currency: "eur",
        tax_behavior: null,
        minimum_amount: 500,
        maximum_amount: 10_000,
        preset_amount: 2000,
      },
      {
        ...common,
        id: expect.any(String),
        amount_type: "seat_based",
        price_currency: "gbp",
        tax_behavior: null,
        seat_tiers: {
          seat_tier_type: "volume",
          tiers: [
            { min_seats: 1, max_seats: 5, price_per_seat: 1000 },
            { min_seats: 6, max_seats: null, price_per_seat: 800 },
          ],
          minimum_seats: 1,
          maximum_seats: null,
        },
      },
      {
        ...common,
        id: expect.any(String),
        amount_type: "metered_unit",
        price_currency: "usd",
        tax_behavior: null,
        unit_amount: "0.05",
        cap_amount: 100_000,
        meter_id: METER,
        meter: { id: METER, name: "", unit: "scalar", custom_label: null, custom_multiplier: null },
      },
    ]);
  });

  it("creates a one-time product; a free price is emitted as fixed 0", async () => {
    const response = await create({ name: "Ebook", prices: [{ amount_type: "free" }] });
    expect(response.statusCode).toBe(201);
    expectReferenceResponse("products:create", 201, response.json());
    expect(response.json()).toMatchObject({
      is_recurring: false,
      recurring_interval: null,
      recurring_interval_count: null,
      visibility: "public",
      metadata: {},
    });
    expect(response.json().prices).toMatchObject([{ amount_type: "fixed", price_amount: 0, price_currency: "usd" }]);
  });

  it("defaults a custom price's minimum to 50 and lets the owner create in a named organization", async () => {
    const response = await create({ name: "Tip jar", organization_id: orgId, prices: [{ amount_type: "custom" }] }, ctx.ownerToken);
    expect(response.statusCode).toBe(201);
    expect(response.json().prices[0]).toMatchObject({ minimum_amount: 50, maximum_amount: null, preset_amount: null });
  });

  describe("bad input", () => {
    let before: { products: number; prices: number };
    let readToken: string;
    beforeAll(async () => {
      before = await counts();
      readToken = await createOrganizationToken(ctx.deps, orgId, ["products:read"]);
    });
    const post =
      (payload: unknown, as: () => string | null = () => token) =>
      () => ({ method: "POST" as const, url: "/v1/products/", token: as(), payload: payload as object });
    const fixed = { amount_type: "fixed", price_amount: 1000 };
    const base = { name: "Valid name", prices: [fixed] };

    badInputTable(
      () => ctx.request,
      [
        { name: "a name with a NUL character", request: post({ ...base, name: "nul\u0000name" }), status: 422, loc: ["body"] },
        { name: "an empty metadata key", request: post({ ...base, metadata: { "": 1 } }), status: 422, loc: ["body", "metadata"] },
        {
          name: "a 41-character metadata key",
          request: post({ ...base, metadata: { ["k".repeat(41)]: 1 } }),
          status: 422,
          loc: ["body", "metadata"],
        },
        { name: "a missing name", request: post({ prices: [fixed] }), status: 422, loc: ["body", "name"] },
        { name: "a two-character name", request: post({ ...base, name: "ab" }), status: 422, loc: ["body", "name"] },
        { name: "a 65-character name", request: post({ ...base, name: "n".repeat(65) }), status: 422, loc: ["body", "name"] },
        { name: "no prices", request: post({ ...base, prices: [] }), status: 422, loc: ["body", "prices"] },
        {
          name: "an unknown amount_type",
          request: post({ ...base, prices: [{ amount_type: "tiered" }] }),
          status: 422,
          loc: ["body", "prices", 0, "amount_type"],
        },
        {
          name: "a negative fixed amount",
          request: post({ ...base, prices: [{ amount_type: "fixed", price_amount: -1 }] }),
          status: 422,
          loc: ["body", "prices", 0, "price_amount"],
        },
        {
          name: "a fractional amount",
          request: post({ ...base, prices: [{ amount_type: "fixed", price_amount: 10.5 }] }),
          status: 422,
          loc: ["body", "prices", 0, "price_amount"],
        },
        {
          name: "an amount given as a string",
          request: post({ ...base, prices: [{ amount_type: "fixed", price_amount: "1000" }] }),
          status: 422,
          loc: ["body", "prices", 0, "price_amount"],
        },
        {
          name: "an unknown currency",
          request: post({ ...base, prices: [{ ...fixed, price_currency: "xxx" }] }),
          status: 422,
          loc: ["body", "prices", 0, "price_currency"],
        },
        {
          name: "two static prices in one currency",
          request: post({ ...base, prices: [fixed, { amount_type: "custom" }] }),
          status: 422,
          loc: ["body", "prices", 1],
        },
        {
          name: "a custom maximum below the minimum",
          request: post({ ...base, prices: [{ amount_type: "custom", minimum_amount: 500, maximum_amount: 100 }] }),
          status: 422,
          loc: ["body", "prices", 0, "maximum_amount"],
        },
        {
          name: "a custom preset outside the range",
          request: post({ ...base, prices: [{ amount_type: "custom", minimum_amount: 500, preset_amount: 100 }] }),
          status: 422,
          loc: ["body", "prices", 0, "preset_amount"],
        },
        {
          name: "seat tiers with a gap",
          request: post({
            ...base,
            prices: [
              {
                amount_type: "seat_based",
                seat_tiers: {
                  tiers: [
                    { min_seats: 1, max_seats: 5, price_per_seat: 1 },
                    { min_seats: 7, price_per_seat: 1 },
                  ],
                },
              },
            ],
          }),
          status: 422,
          loc: ["body", "prices", 0, "seat_tiers", "tiers", 1, "min_seats"],
        },
        {
          name: "an unbounded tier that is not last",
          request: post({
            ...base,
            prices: [
              {
                amount_type: "seat_based",
                seat_tiers: {
                  tiers: [
                    { min_seats: 1, price_per_seat: 1 },
                    { min_seats: 2, price_per_seat: 1 },
                  ],
                },
              },
            ],
          }),
          status: 422,
          loc: ["body", "prices", 0, "seat_tiers", "tiers", 0, "max_seats"],
        },
        {
          name: "graduated seat tiers",
          request: post({
            ...base,
            prices: [
              { amount_type: "seat_based", seat_tiers: { seat_tier_type: "graduated", tiers: [{ min_seats: 1, price_per_seat: 1 }] } },
            ],
          }),
          status: 422,
          loc: ["body", "prices", 0, "seat_tiers", "seat_tier_type"],
        },
        {
          name: "a metered price on a one-time product",
          request: post({ ...base, prices: [fixed, { amount_type: "metered_unit", meter_id: METER, unit_amount: 1 }] }),
          status: 422,
          loc: ["body", "prices", 1],
        },
        {
          name: "a metered price with a zero unit amount",
          request: post({
            ...base,
            recurring_interval: "month",
            prices: [{ amount_type: "metered_unit", meter_id: METER, unit_amount: 0 }],
          }),
          status: 422,
          loc: ["body", "prices", 0, "unit_amount"],
        },
        {
          name: "a negative unit amount given as text",
          request: post({
            ...base,
            recurring_interval: "month",
            prices: [{ amount_type: "metered_unit", meter_id: METER, unit_amount: "-0.5" }],
          }),
          status: 422,
          loc: ["body", "prices", 0, "unit_amount"],
        },
        {
          name: "an unknown recurring interval",
          request: post({ ...base, recurring_interval: "fortnight" }),
          status: 422,
          loc: ["body", "recurring_interval"],
        },
        {
          name: "a recurring interval count of 0",
          request: post({ ...base, recurring_interval: "month", recurring_interval_count: 0 }),
          status: 422,
          loc: ["body", "recurring_interval_count"],
        },
        {
          name: "a trial interval without a count",
          request: post({ ...base, recurring_interval: "month", trial_interval: "day" }),
          status: 422,
          loc: ["body", "trial_interval_count"],
        },
        {
          name: "a trial count above 1000",
          request: post({ ...base, recurring_interval: "month", trial_interval: "day", trial_interval_count: 1001 }),
          status: 422,
          loc: ["body", "trial_interval_count"],
        },
        { name: "an unknown media", request: post({ ...base, medias: [METER] }), status: 422, loc: ["body", "medias", 0] },
        {
          name: "an unknown custom field",
          request: post({ ...base, attached_custom_fields: [{ custom_field_id: METER, required: true }] }),
          status: 422,
          loc: ["body", "attached_custom_fields", 0],
        },
        { name: "an unknown visibility", request: post({ ...base, visibility: "hidden" }), status: 422, loc: ["body", "visibility"] },
        {
          name: "the owner without organization_id",
          request: post(base, () => ctx.ownerToken),
          status: 422,
          loc: ["body", "organization_id"],
        },
        { name: "no token", request: post(base, () => null), status: 401, error: "Unauthorized" },
        { name: "a read-only token", request: post(base, () => readToken), status: 403, error: "insufficient_scope" },
      ],
      async () => expect(await counts()).toEqual(before),
    );
  });
});
