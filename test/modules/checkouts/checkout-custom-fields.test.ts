import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { badInputTable } from "../../helpers/bad-inputs.ts";
import type { TestContext } from "../../helpers/context.ts";
import { openOrganizationContext } from "../../helpers/factories.ts";
import { expectReferenceResponse } from "../../helpers/reference.ts";
import { FR_ADDRESS, writeCounts } from "./checkout-helpers.ts";

let ctx: TestContext;
let token: string;
let productId: string;
let plainProductId: string;

/** 2026-01-01T00:00:00Z: the earliest start date the date field takes. */
const JAN_2026 = 1767225600;

const FIELDS = [
  { slug: "company", type: "text", properties: { min_length: 2, max_length: 20 }, required: true },
  { slug: "size", type: "number", properties: { ge: 1, le: 10 }, required: false },
  { slug: "start", type: "date", properties: { ge: JAN_2026, le: 0 }, required: false },
  { slug: "terms", type: "checkbox", properties: {}, required: true },
  {
    slug: "plan",
    type: "select",
    properties: {
      options: [
        { value: "a", label: "A" },
        { value: "b", label: "B" },
      ],
    },
    required: false,
  },
  { slug: "newsletter", type: "checkbox", properties: {}, required: false },
] as const;

beforeAll(async () => {
  ({
    ctx,
    tokens: [token],
  } = await openOrganizationContext(["checkouts:write", "custom_fields:write", "products:write", "orders:read"]));
  const ids: string[] = [];
  for (const field of FIELDS) {
    const response = await ctx.request({
      method: "POST",
      url: "/v1/custom-fields/",
      token,
      payload: { type: field.type, slug: field.slug, name: field.slug, properties: field.properties },
    });
    expect(response.statusCode, response.body).toBe(201);
    ids.push(response.json().id);
  }
  const product = await ctx.request({
    method: "POST",
    url: "/v1/products/",
    token,
    payload: {
      name: "Fielded",
      prices: [{ amount_type: "fixed", price_amount: 1000 }],
      attached_custom_fields: FIELDS.map((field, i) => ({ custom_field_id: ids[i], required: field.required })),
    },
  });
  expect(product.statusCode, product.body).toBe(201);
  expectReferenceResponse("products:create", 201, product.json());
  productId = product.json().id;
  const plain = await ctx.request({
    method: "POST",
    url: "/v1/products/",
    token,
    payload: { name: "Plain", prices: [{ amount_type: "fixed", price_amount: 500 }] },
  });
  plainProductId = plain.json().id;
});
afterAll(() => ctx.close());

const open = async (payload: Record<string, unknown> = {}) => {
  const response = await ctx.request({ method: "POST", url: "/v1/checkouts/", token, payload: { products: [productId], ...payload } });
  expect(response.statusCode, response.body).toBe(201);
  return response.json<{ id: string; client_secret: string; custom_field_data: Record<string, unknown> }>();
};
const clientPatch = (secret: string, payload: Record<string, unknown>) =>
  ctx.request({ method: "PATCH", url: `/v1/checkouts/client/${secret}`, payload });
const storedData = async (id: string) =>
  (await ctx.deps.db.selectFrom("checkouts").select("custom_field_data").where("id", "=", id).executeTakeFirstOrThrow()).custom_field_data;

describe("custom fields on products and checkouts", () => {
  it("products list their fields in order, with required, and sessions expose the selected product's", async () => {
    const product = await ctx.request({ method: "GET", url: `/v1/products/${productId}`, token: ctx.ownerToken });
    const attached = product.json().attached_custom_fields as { order: number; required: boolean; custom_field: { slug: string } }[];
    expect(attached.map((a) => [a.custom_field.slug, a.order, a.required])).toEqual(FIELDS.map((f, i) => [f.slug, i, f.required]));

    const session = await open({ products: [productId, plainProductId], custom_field_data: { size: 5, unknown: "dropped" } });
    expect(session.custom_field_data).toEqual({ size: 5 });
    const read = await ctx.request({ method: "GET", url: `/v1/checkouts/client/${session.client_secret}` });
    expectReferenceResponse("checkouts:client_get", 200, read.json());
    expect(read.json().attached_custom_fields).toEqual(attached);
    // Selecting the product without fields leaves none to fill in.
    const switched = await clientPatch(session.client_secret, { product_id: plainProductId });
    expect(switched.statusCode, switched.body).toBe(200);
    expect(switched.json().attached_custom_fields).toEqual([]);
  });

  it("merges the values each edit carries, merchant side and buyer side", async () => {
    const session = await open();
    expect((await clientPatch(session.client_secret, { custom_field_data: { company: "Acme", size: "3" } })).statusCode).toBe(200);
    const merchant = await ctx.request({
      method: "PATCH",
      url: `/v1/checkouts/${session.id}`,
      token,
      payload: { custom_field_data: { start: "2026-03-01", plan: "b", newsletter: "yes" } },
    });
    expect(merchant.statusCode, merchant.body).toBe(200);
    expectReferenceResponse("checkouts:update", 200, merchant.json());
    expect(merchant.json().custom_field_data).toEqual({
      company: "Acme",
      size: 3,
      start: "2026-03-01T00:00:00",
      plan: "b",
      newsletter: true,
    });
    // An edit does not ask for required fields, nor for a ticked box.
    expect((await clientPatch(session.client_secret, { custom_field_data: { terms: false } })).statusCode).toBe(200);
  });

  it("confirm asks for the required fields, and its values replace the stored ones on the paid order", async () => {
    const session = await open({ custom_field_data: { size: 4, plan: "a" } });
    const buyer = {
      customer_email: "ada@example.com",
      customer_name: "Ada",
      customer_billing_address: FR_ADDRESS,
      confirmation_token_id: "tok_visa",
    };
    const before = await writeCounts(ctx);
    const missing = await ctx.request({ method: "POST", url: `/v1/checkouts/client/${session.client_secret}/confirm`, payload: buyer });
    expect(missing.statusCode).toBe(422);
    expectReferenceResponse("checkouts:client_confirm", 422, missing.json());
    expect(missing.json().detail).toEqual([
      { loc: ["body", "custom_field_data", "company"], msg: "Field required", type: "missing", input: null },
      { loc: ["body", "custom_field_data", "terms"], msg: "Field required", type: "missing", input: null },
    ]);
    const unticked = await ctx.request({
      method: "POST",
      url: `/v1/checkouts/client/${session.client_secret}/confirm`,
      payload: { ...buyer, custom_field_data: { company: "Acme", terms: false } },
    });
    expect(unticked.json().detail).toEqual([
      {
        loc: ["body", "custom_field_data", "terms"],
        msg: "Input should be True",
        type: "literal_error",
        input: false,
        ctx: { expected: "True" },
      },
    ]);
    expect(await writeCounts(ctx)).toEqual(before);
    expect(await storedData(session.id)).toEqual({ size: 4, plan: "a" });

    const confirmed = await ctx.request({
      method: "POST",
      url: `/v1/checkouts/client/${session.client_secret}/confirm`,
      payload: { ...buyer, custom_field_data: { company: "Acme", terms: true, start: 1772323200 } },
    });
    expect(confirmed.statusCode, confirmed.body).toBe(200);
    const expected = { company: "Acme", size: null, start: "2026-03-01T00:00:00", terms: true, plan: null, newsletter: false };
    expect(confirmed.json().custom_field_data).toEqual(expected);
    const order = await ctx.deps.db.selectFrom("orders").select("id").where("checkout_id", "=", session.id).executeTakeFirstOrThrow();
    const read = await ctx.request({ method: "GET", url: `/v1/orders/${order.id}`, token });
    expectReferenceResponse("orders:get", 200, read.json());
    expect(read.json().custom_field_data).toEqual(expected);
  });

  it("refuses an invalid value at the merchant's create, writing nothing", async () => {
    const before = await writeCounts(ctx);
    const response = await ctx.request({
      method: "POST",
      url: "/v1/checkouts/",
      token,
      payload: { products: [productId], custom_field_data: { size: 0 } },
    });
    expect(response.statusCode).toBe(422);
    expectReferenceResponse("checkouts:create", 422, response.json());
    expect(response.json().detail).toEqual([
      {
        loc: ["body", "custom_field_data", "size"],
        msg: "Input should be greater than or equal to 1",
        type: "greater_than_equal",
        input: 0,
        ctx: { ge: 1 },
      },
    ]);
    expect(await writeCounts(ctx)).toEqual(before);
  });

  describe("bad values in the client update", () => {
    let session: { id: string; client_secret: string };
    let before: { counts: Record<string, number>; data: unknown };
    beforeAll(async () => {
      session = await open({ custom_field_data: { company: "Kept" } });
      before = { counts: await writeCounts(ctx), data: await storedData(session.id) };
    });
    const patch = (data: unknown) => () => ({
      method: "PATCH" as const,
      url: `/v1/checkouts/client/${session.client_secret}`,
      payload: { custom_field_data: data } as object,
    });
    const at = (slug: string) => ["body", "custom_field_data", slug];

    badInputTable(
      () => ctx.request,
      [
        { name: "a text too short", request: patch({ company: "A" }), status: 422, loc: at("company") },
        { name: "a text too long", request: patch({ company: "A".repeat(21) }), status: 422, loc: at("company") },
        { name: "a number for a text", request: patch({ company: 12 }), status: 422, loc: at("company") },
        { name: "a fraction for a number", request: patch({ size: 1.5 }), status: 422, loc: at("size") },
        { name: "a number above le", request: patch({ size: 11 }), status: 422, loc: at("size") },
        { name: "text for a number", request: patch({ size: "many" }), status: 422, loc: at("size") },
        { name: "a date before ge", request: patch({ start: "2025-12-31" }), status: 422, loc: at("start") },
        { name: "a date that does not exist", request: patch({ start: "2026-02-30" }), status: 422, loc: at("start") },
        { name: "no date at all", request: patch({ start: "soon" }), status: 422, loc: at("start") },
        { name: "a checkbox as text", request: patch({ newsletter: "maybe" }), status: 422, loc: at("newsletter") },
        { name: "an unknown option", request: patch({ plan: "c" }), status: 422, loc: at("plan") },
        { name: "an object value", request: patch({ plan: { a: 1 } }), status: 422 },
        { name: "an overlong value", request: patch({ company: "x".repeat(2001) }), status: 422 },
        { name: "custom_field_data as a list", request: patch(["a"]), status: 422, loc: ["body", "custom_field_data"] },
      ],
      async () => {
        expect(await writeCounts(ctx)).toEqual(before.counts);
        expect(await storedData(session.id)).toEqual(before.data);
      },
    );
  });
});
