import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestContext } from "../../helpers/context.ts";
import { createDiscount, createProduct, openOrganizationContext, type ProductWithPrices } from "../../helpers/factories.ts";
import { eventsFor, writeCounts } from "../checkouts/checkout-helpers.ts";

let ctx: TestContext;
let orgId: string;
let token: string;
let fixed: ProductWithPrices;
let custom: ProductWithPrices;
let fieldProductId: string;

beforeAll(async () => {
  ({
    ctx,
    org: { id: orgId },
    tokens: [token],
  } = await openOrganizationContext(["checkout_links:write", "custom_fields:write", "products:write"]));
  fixed = await createProduct(ctx.deps, orgId, { product: { name: "Fixed" } });
  custom = await createProduct(ctx.deps, orgId, {
    product: { name: "Pay what you want" },
    prices: [{ amount_type: "custom", minimum_amount: 500, maximum_amount: 10_000, preset_amount: 1000 }],
  });
  const field = await ctx.request({
    method: "POST",
    url: "/v1/custom-fields/",
    token,
    payload: { type: "number", slug: "team", name: "Team size", properties: { ge: 1, le: 50 } },
  });
  const product = await ctx.request({
    method: "POST",
    url: "/v1/products/",
    token,
    payload: {
      name: "With a field",
      prices: [{ amount_type: "fixed", price_amount: 900 }],
      attached_custom_fields: [{ custom_field_id: field.json().id, required: true }],
    },
  });
  fieldProductId = product.json().id;
});
afterAll(() => ctx.close());

const link = async (payload: Record<string, unknown>) => {
  const response = await ctx.request({
    method: "POST",
    url: "/v1/checkout-links/",
    token,
    payload: { payment_processor: "stripe", ...payload },
  });
  expect(response.statusCode, response.body).toBe(201);
  return response.json<{ client_secret: string; url: string }>();
};
const visit = (secret: string, query = "") => ctx.request({ method: "GET", url: `/v1/checkout-links/${secret}/redirect${query}` });

/** Follows the redirect to the session it opened, read through the merchant's API. */
async function opened(secret: string, query = "") {
  const response = await visit(secret, query);
  expect(response.statusCode, response.body).toBe(307);
  const location = new URL(String(response.headers.location));
  const clientSecret = location.pathname.split("/").pop()!;
  const row = await ctx.deps.db.selectFrom("checkouts").select("id").where("client_secret", "=", clientSecret).executeTakeFirstOrThrow();
  const checkout = (await ctx.request({ method: "GET", url: `/v1/checkouts/${row.id}`, token: ctx.ownerToken })).json();
  return { location, checkout };
}

describe("GET /v1/checkout-links/{client_secret}/redirect", () => {
  it("opens a new session from the link and redirects to its page, passing on what it does not consume", async () => {
    const { client_secret, url } = await link({
      products: [fixed.product.id, custom.product.id],
      allow_discount_codes: false,
      require_billing_address: true,
      success_url: "https://shop.test/thanks",
      metadata: { campaign: "spring", utm_source: "link" },
    });
    expect(url.endsWith(`/v1/checkout-links/${client_secret}/redirect`)).toBe(true);
    const { location, checkout } = await opened(
      client_secret,
      "?reference_id=ref-1&utm_source=mail&utm_medium=news&customer_email=ada@example.com&foo=bar",
    );
    expect(`${location.origin}${location.pathname}`).toBe(checkout.url);
    expect(checkout.url).toMatch(/\/checkout\/polar_c_/);
    expect([...location.searchParams]).toEqual([
      ["reference_id", "ref-1"],
      ["utm_source", "mail"],
      ["utm_medium", "news"],
      ["foo", "bar"],
    ]);
    expect(checkout).toMatchObject({
      status: "open",
      product_id: fixed.product.id,
      allow_discount_codes: false,
      require_billing_address: true,
      allow_trial: true,
      success_url: "https://shop.test/thanks",
      customer_email: "ada@example.com",
      // The link's own metadata wins over a tracking parameter of the same key.
      metadata: { campaign: "spring", utm_source: "link", reference_id: "ref-1", utm_medium: "news" },
    });
    expect(checkout.products.map((p: { id: string }) => p.id)).toEqual([fixed.product.id, custom.product.id]);
    expect(await eventsFor(ctx, checkout.id)).toEqual(["checkout.created"]);
    // Each visit is a session of its own.
    const again = await opened(client_secret);
    expect(again.checkout.id).not.toBe(checkout.id);
    expect([...again.location.searchParams]).toEqual([]);
  });

  it("selects the product named by product_id, and takes a valid amount for a custom price", async () => {
    const { client_secret } = await link({ products: [fixed.product.id, custom.product.id] });
    const { checkout } = await opened(client_secret, `?product_id=${custom.product.id}&amount=2500.9`);
    expect(checkout).toMatchObject({ product_id: custom.product.id, amount: 2500 });
    const outOfRange = await opened(client_secret, `?product_id=${custom.product.id}&amount=99`);
    expect(outOfRange.checkout).toMatchObject({ product_id: custom.product.id, amount: 1000 });
    // An id not on the link falls back to the first product.
    expect((await opened(client_secret, `?product_id=${fixed.product.id.replace(/.$/, "0")}`)).checkout.product_id).toBe(fixed.product.id);
  });

  it("ignores invalid prefill values instead of refusing the visit", async () => {
    const { client_secret } = await link({ products: [fixed.product.id] });
    const { checkout, location } = await opened(
      client_secret,
      "?customer_email=not-an-email&customer_name=%20Ada%20&locale=fr&discount_code=NOPE",
    );
    expect(checkout).toMatchObject({ customer_email: null, customer_name: "Ada", locale: "en", discount_id: null });
    expect([...location.searchParams]).toEqual([]);
  });

  it("applies a discount code even where the link disallows codes, and drops a link discount that no longer applies", async () => {
    const code = await createDiscount(ctx.deps, orgId, { code: "LINK10", basis_points: 1000 });
    const ended = await createDiscount(ctx.deps, orgId, { ends_at: new Date(Date.now() - 86_400_000) });
    const { client_secret } = await link({ products: [fixed.product.id], allow_discount_codes: false, discount_id: ended.id });
    expect((await opened(client_secret)).checkout).toMatchObject({ discount_id: null, amount: 2500, net_amount: 2500 });
    expect((await opened(client_secret, "?discount_code=link10")).checkout).toMatchObject({ discount_id: code.id, net_amount: 2250 });
  });

  it("prefills an attached custom field's valid value and passes an invalid one on", async () => {
    const { client_secret } = await link({ products: [fieldProductId] });
    const valid = await opened(client_secret, "?custom_field_data.team=12&custom_field_data.other=x");
    expect(valid.checkout.custom_field_data).toEqual({ team: 12 });
    expect([...valid.location.searchParams]).toEqual([["custom_field_data.other", "x"]]);
    const invalid = await opened(client_secret, "?custom_field_data.team=99");
    expect(invalid.checkout.custom_field_data).toEqual({});
    expect([...invalid.location.searchParams]).toEqual([["custom_field_data.team", "99"]]);
  });

  it("skips archived and draft products, and answers 422 when none is left, opening nothing", async () => {
    const archived = await createProduct(ctx.deps, orgId, { product: { name: "Gone" } });
    const draft = await createProduct(ctx.deps, orgId, { product: { name: "Draft", visibility: "draft" } });
    const { client_secret } = await link({ products: [archived.product.id, draft.product.id, fixed.product.id] });
    await ctx.deps.db.updateTable("products").set({ is_archived: true }).where("id", "=", archived.product.id).execute();
    expect((await opened(client_secret)).checkout.products.map((p: { id: string }) => p.id)).toEqual([fixed.product.id]);

    await ctx.deps.db.updateTable("products").set({ is_archived: true }).where("id", "=", fixed.product.id).execute();
    const before = await writeCounts(ctx);
    const response = await visit(client_secret);
    expect(response.statusCode).toBe(422);
    expect(response.json()).toEqual({
      error: "RequestValidationError",
      detail: [{ loc: ["body", "products"], msg: "No valid products.", type: "value_error", input: null }],
    });
    expect(await writeCounts(ctx)).toEqual(before);
    await ctx.deps.db.updateTable("products").set({ is_archived: false }).where("id", "=", fixed.product.id).execute();
  });

  it("answers 404 for an unknown secret, writing nothing", async () => {
    const before = await writeCounts(ctx);
    for (const secret of ["polar_cl_unknown", "x".repeat(256)]) expect((await visit(secret)).statusCode).toBe(404);
    expect((await visit("x".repeat(257))).statusCode).toBe(422);
    expect(await writeCounts(ctx)).toEqual(before);
  });
});
