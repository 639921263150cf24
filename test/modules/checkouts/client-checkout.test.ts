import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { badInputTable } from "../../helpers/bad-inputs.ts";
import type { TestContext } from "../../helpers/context.ts";
import { createDiscount, createOrganization, createProduct, openOrganizationContext, registerForTax } from "../../helpers/factories.ts";
import { expectReferenceResponse } from "../../helpers/reference.ts";
import { US_ADDRESS, eventsFor, writeCounts, openCheckoutThroughApi } from "./checkout-helpers.ts";

let ctx: TestContext;
let org: { id: string; slug: string; name: string };
let token: string;

beforeAll(async () => {
  ({
    ctx,
    org,
    tokens: [token],
  } = await openOrganizationContext(["checkouts:write"]));
  await registerForTax(ctx.deps, org.id);
});
afterAll(() => ctx.close());

const open = (payload: Record<string, unknown>) => openCheckoutThroughApi(ctx, token, payload);
const clientGet = (secret: string) => ctx.request({ method: "GET", url: `/v1/checkouts/client/${secret}` });
const clientPatch = (secret: string, payload: Record<string, unknown>) =>
  ctx.request({ method: "PATCH", url: `/v1/checkouts/client/${secret}`, payload });

describe("GET /v1/checkouts/client/{client_secret}", () => {
  it("answers the public view: the seller added, the merchant's own fields left out", async () => {
    const product = await createProduct(ctx.deps, org.id);
    const session = await open({ products: [product.product.id], metadata: { internal: "yes" }, external_customer_id: "crm-1" });
    const response = await clientGet(session.client_secret);
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expectReferenceResponse("checkouts:client_get", 200, body);
    expect(body).toMatchObject({
      id: session.id,
      status: "open",
      amount: 2500,
      organization: { id: org.id, name: org.name, slug: org.slug, proration_behavior: "prorate", allow_customer_updates: true },
    });
    for (const key of [
      "metadata",
      "customer_metadata",
      "external_customer_id",
      "subscription_id",
      "trial_interval",
      "trial_interval_count",
    ])
      expect(body).not.toHaveProperty(key);
  });

  it("answers 404 for an unknown secret and 410 once expired", async () => {
    const missing = await clientGet("polar_c_doesnotexist");
    expect(missing.statusCode).toBe(404);
    expectReferenceResponse("checkouts:client_get", 404, missing.json());
    const product = await createProduct(ctx.deps, org.id);
    const session = await open({ products: [product.product.id] });
    ctx.clock.advance(86_401_000);
    try {
      const gone = await clientGet(session.client_secret);
      expect(gone.statusCode).toBe(410);
      expectReferenceResponse("checkouts:client_get", 410, gone.json());
      expect(gone.json()).toEqual({ error: "ExpiredCheckoutError", detail: "This checkout session has expired." });
    } finally {
      ctx.clock.advance(-86_401_000);
    }
  });
});

describe("a checkout's first view", () => {
  const openedAt = async (id: string) =>
    (await ctx.deps.db.selectFrom("checkouts").select("opened_at").where("id", "=", id).executeTakeFirstOrThrow()).opened_at;

  it("is recorded by the buyer's first read, the hosted page's or the client API's, and kept by later ones", async () => {
    const product = await createProduct(ctx.deps, org.id);
    const [byApi, byPage] = [await open({ products: [product.product.id] }), await open({ products: [product.product.id] })];
    // The seller's own reads are not a buyer's view.
    expect((await ctx.request({ method: "GET", url: `/v1/checkouts/${byApi.id}`, token })).statusCode).toBe(200);
    expect(await openedAt(byApi.id)).toBeNull();

    const first = ctx.clock.now();
    expect((await clientGet(byApi.client_secret)).statusCode).toBe(200);
    expect((await ctx.request({ method: "GET", url: `/checkout/${byPage.client_secret}` })).statusCode).toBe(200);
    ctx.clock.advance(60_000);
    try {
      expect((await clientGet(byApi.client_secret)).statusCode).toBe(200);
      expect(await openedAt(byApi.id)).toEqual(first);
      expect(await openedAt(byPage.id)).toEqual(first);
    } finally {
      ctx.clock.advance(-60_000);
    }
  });

  it("is not recorded when the read is refused (an expired session)", async () => {
    const product = await createProduct(ctx.deps, org.id);
    const session = await open({ products: [product.product.id] });
    ctx.clock.advance(86_401_000);
    try {
      expect((await clientGet(session.client_secret)).statusCode).toBe(410);
      expect(await openedAt(session.id)).toBeNull();
    } finally {
      ctx.clock.advance(-86_401_000);
    }
  });
});

describe("GET /v1/checkouts/client/{client_secret} bad input", () => {
  badInputTable(
    () => ctx.request,
    [
      {
        name: "an unknown secret",
        request: () => ({ method: "GET", url: "/v1/checkouts/client/polar_c_unknown" }),
        status: 404,
        error: "ResourceNotFound",
      },
      {
        name: "an overlong secret",
        request: () => ({ method: "GET", url: `/v1/checkouts/client/${"x".repeat(257)}` }),
        status: 422,
        loc: ["path", "client_secret"],
      },
      {
        name: "an invalid bearer token",
        request: () => ({ method: "GET", url: "/v1/checkouts/client/polar_c_unknown", headers: { authorization: "Bearer polar_oat_bad" } }),
        status: 401,
        error: "invalid_token",
      },
    ],
  );
});

describe("PATCH /v1/checkouts/client/{client_secret}", () => {
  it("selects a product, takes the buyer's details, prices tax and records checkout.updated", async () => {
    const first = await createProduct(ctx.deps, org.id);
    const second = await createProduct(ctx.deps, org.id, { prices: [{ amount_type: "fixed", price_amount: 4000 }] });
    const session = await open({ products: [first.product.id, second.product.id] });
    const response = await clientPatch(session.client_secret, {
      product_id: second.product.id,
      customer_email: "ada@example.com",
      customer_name: "Ada",
      customer_billing_address: { country: "CA" },
    });
    expect(response.statusCode, response.body).toBe(200);
    const body = response.json();
    expectReferenceResponse("checkouts:client_update", 200, body);
    expect(body).toMatchObject({
      product_id: second.product.id,
      product_price_id: second.prices[0]!.id,
      amount: 4000,
      tax_amount: 200,
      total_amount: 4200,
      customer_email: "ada@example.com",
      billing_address_fields: { country: "required", state: "required", line1: "disabled" },
    });
    expect(await eventsFor(ctx, session.id)).toEqual(["checkout.created", "checkout.updated"]);
  });

  it("applies and removes a discount code, case-insensitively", async () => {
    const product = await createProduct(ctx.deps, org.id);
    const discount = await createDiscount(ctx.deps, org.id, { code: "Spring", basis_points: 2000 });
    const session = await open({ products: [product.product.id] });
    const applied = (await clientPatch(session.client_secret, { discount_code: "SPRING" })).json();
    expect(applied).toMatchObject({ discount_id: discount.id, discount_amount: 500, net_amount: 2000 });
    const removed = (await clientPatch(session.client_secret, { discount_code: null })).json();
    expect(removed).toMatchObject({ discount_id: null, discount_amount: 0, net_amount: 2500 });
  });

  it("drops a discount the newly selected product is not covered by", async () => {
    const covered = await createProduct(ctx.deps, org.id);
    const other = await createProduct(ctx.deps, org.id);
    const discount = await createDiscount(ctx.deps, org.id, { code: "ONLYCOVERED" });
    await ctx.deps.db
      .insertInto("discount_products")
      .values({ organization_id: org.id, discount_id: discount.id, product_id: covered.product.id })
      .execute();
    const session = await open({ products: [covered.product.id, other.product.id], discount_id: discount.id });
    const body = (await clientPatch(session.client_secret, { product_id: other.product.id })).json();
    expect(body).toMatchObject({ product_id: other.product.id, discount_id: null, discount_amount: 0, amount: 2500 });
  });

  it("turns the trial off when the buyer asks", async () => {
    const monthly = await createProduct(ctx.deps, org.id, {
      product: { recurring_interval: "month", recurring_interval_count: 1, trial_interval: "week", trial_interval_count: 1 },
    });
    const session = await open({ products: [monthly.product.id] });
    const body = (await clientPatch(session.client_secret, { allow_trial: false, customer_billing_address: US_ADDRESS })).json();
    expect(body).toMatchObject({
      allow_trial: false,
      trial_end: null,
      active_trial_interval: null,
      is_payment_required: true,
      tax_amount: 0,
    });
  });

  describe("bad input", () => {
    let secret: string;
    let lockedSecret: string;
    let confirmedSecret: string;
    let eurProductId: string;
    let foreignCode: string;
    let otherProductCode: string;
    let before: Record<string, number>;
    beforeAll(async () => {
      const product = await createProduct(ctx.deps, org.id);
      eurProductId = (
        await createProduct(ctx.deps, org.id, { prices: [{ amount_type: "fixed", price_amount: 100, price_currency: "eur" }] })
      ).product.id;
      secret = (await open({ products: [product.product.id] })).client_secret;
      const preset = await createDiscount(ctx.deps, org.id);
      lockedSecret = (await open({ products: [product.product.id], discount_id: preset.id, allow_discount_codes: false })).client_secret;
      const free = await createProduct(ctx.deps, org.id, { prices: [{ amount_type: "free", price_amount: null }] });
      confirmedSecret = (await open({ products: [free.product.id], customer_email: "done@example.com" })).client_secret;
      expect((await ctx.request({ method: "POST", url: `/v1/checkouts/client/${confirmedSecret}/confirm`, payload: {} })).statusCode).toBe(
        200,
      );
      const other = await createOrganization(ctx.deps);
      foreignCode = (await createDiscount(ctx.deps, other.id, { code: "THEIRS" })).code!;
      const elsewhere = await createProduct(ctx.deps, org.id);
      const restricted = await createDiscount(ctx.deps, org.id, { code: "ONLYTHAT" });
      await ctx.deps.db
        .insertInto("discount_products")
        .values({ organization_id: org.id, discount_id: restricted.id, product_id: elsewhere.product.id })
        .execute();
      otherProductCode = restricted.code!;
      await createDiscount(ctx.deps, org.id, { code: "USEDUP", max_redemptions: 2, redemptions_count: 2 });
      await createDiscount(ctx.deps, org.id, { code: "EUROS", type: "fixed", basis_points: null, amounts: JSON.stringify({ eur: 100 }) });
      before = await writeCounts(ctx);
    });
    const patch =
      (payload: unknown, which: () => string = () => secret) =>
      () => ({ method: "PATCH" as const, url: `/v1/checkouts/client/${which()}`, payload: payload as object });

    badInputTable(
      () => ctx.request,
      [
        {
          name: "a product not in the session",
          request: () => patch({ product_id: eurProductId })(),
          status: 422,
          loc: ["body", "product_id"],
        },
        { name: "a non-UUID product", request: patch({ product_id: "nope" }), status: 422, loc: ["body", "product_id"] },
        { name: "an unknown discount code", request: patch({ discount_code: "NOPE" }), status: 422, loc: ["body", "discount_code"] },
        {
          name: "another organization's code",
          request: () => patch({ discount_code: foreignCode })(),
          status: 422,
          loc: ["body", "discount_code"],
        },
        {
          name: "a code for another product",
          request: () => patch({ discount_code: otherProductCode })(),
          status: 422,
          loc: ["body", "discount_code"],
        },
        { name: "a code past its redemptions", request: patch({ discount_code: "USEDUP" }), status: 422, loc: ["body", "discount_code"] },
        {
          name: "a fixed code without the session's currency",
          request: patch({ discount_code: "EUROS" }),
          status: 422,
          loc: ["body", "discount_code"],
        },
        {
          name: "a code where codes are not allowed",
          request: patch({ discount_code: "USEDUP" }, () => lockedSecret),
          status: 422,
          loc: ["body", "discount_code"],
        },
        { name: "a wrong-typed email", request: patch({ customer_email: 12 }), status: 422, loc: ["body", "customer_email"] },
        { name: "an overlong tax ID", request: patch({ customer_tax_id: "1".repeat(65) }), status: 422, loc: ["body", "customer_tax_id"] },
        {
          name: "an invalid VAT number",
          request: patch({ customer_billing_address: { country: "DE" }, customer_tax_id: "DE000" }),
          status: 422,
          loc: ["body", "customer_tax_id"],
        },
        {
          name: "an address without country",
          request: patch({ customer_billing_address: { line1: "x" } }),
          status: 422,
          loc: ["body", "customer_billing_address", "country"],
        },
        { name: "seats out of range", request: patch({ seats: 0 }), status: 422, loc: ["body", "seats"] },
        {
          name: "a confirmed session",
          request: patch({ customer_name: "Late" }, () => confirmedSecret),
          status: 403,
          error: "NotOpenCheckout",
        },
        {
          name: "an unknown secret",
          request: () => ({ method: "PATCH", url: "/v1/checkouts/client/polar_c_x", payload: {} }),
          status: 404,
          error: "ResourceNotFound",
        },
      ],
      async () => expect(await writeCounts(ctx)).toEqual(before),
    );

    it("answers a closed session's 403 in the reference's shape", async () => {
      const response = await ctx.request({ method: "PATCH", url: `/v1/checkouts/client/${confirmedSecret}`, payload: {} });
      expect(response.statusCode, response.body).toBe(403);
      expectReferenceResponse("checkouts:client_update", 403, response.json());
      const discountResponse = await ctx.request({
        method: "PATCH",
        url: `/v1/checkouts/client/${secret}`,
        payload: { discount_code: "NOPE" },
      });
      expect(discountResponse.statusCode, discountResponse.body).toBe(422);
      expectReferenceResponse("checkouts:client_update", 422, discountResponse.json());
      expect(discountResponse.json().detail).toEqual([
        { loc: ["body", "discount_code"], msg: "Discount code is invalid.", type: "value_error", input: "NOPE" },
      ]);
    });
  });
});
