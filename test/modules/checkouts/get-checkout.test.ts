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
} from "../../helpers/factories.ts";
import { expectReferenceResponse } from "../../helpers/reference.ts";

let ctx: TestContext;
let orgId: string;
let readToken: string;

beforeAll(async () => {
  ({
    ctx,
    org: { id: orgId },
    tokens: [readToken],
  } = await openOrganizationContext(["checkouts:read"]));
});
afterAll(() => ctx.close());

const get = (id: string, token: string | null = readToken) => ctx.request({ method: "GET", url: `/v1/checkouts/${id}`, token });

describe("GET /v1/checkouts/{id}", () => {
  it("answers the full Checkout with three products, the selected one's prices, benefits and medias", async () => {
    const main = await createProduct(ctx.deps, orgId, {
      product: { name: "Pro", description: "Everything" },
      prices: [{ amount_type: "fixed", price_amount: 10_000, price_currency: "usd" }],
      benefits: [{ type: "license_keys", description: "A license key", properties: { prefix: "PRO" } }],
      medias: 2,
    });
    const custom = await createProduct(ctx.deps, orgId, {
      prices: [{ amount_type: "custom", minimum_amount: 500, preset_amount: 1500, maximum_amount: null }],
    });
    const seats = await createProduct(ctx.deps, orgId, {
      prices: [
        {
          amount_type: "seat_based",
          seat_tiers: JSON.stringify([
            { min_seats: 1, max_seats: 10, price_per_seat: 900 },
            { min_seats: 11, max_seats: null, price_per_seat: 700 },
          ]),
        },
      ],
    });
    const discount = await createDiscount(ctx.deps, orgId, { type: "percentage", basis_points: 1250, code: "SAVE" });
    const customer = await createCustomer(ctx.deps, orgId);
    const checkout = await createCheckout(ctx.deps, orgId, {
      products: [main, custom, seats],
      discount,
      values: {
        customer_id: customer.id,
        customer_email: customer.email,
        customer_billing_address: JSON.stringify({
          line1: "1 Main St",
          line2: null,
          postal_code: "10001",
          city: "New York",
          state: "US-NY",
          country: "US",
        }),
        metadata: JSON.stringify({ order_ref: "A-1", priority: 2, vip: true }),
        customer_metadata: JSON.stringify({ segment: "smb" }),
      },
    });

    const response = await get(checkout.id);
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expectReferenceResponse("checkouts:get", 200, body);
    expect(body).toMatchObject({
      id: checkout.id,
      organization_id: orgId,
      status: "open",
      payment_processor: "stripe",
      client_secret: checkout.client_secret,
      url: `https://checkout.test/checkout/${checkout.client_secret}`,
      success_url: `https://checkout.test/checkout/${checkout.client_secret}/confirmation`,
      currency: "usd",
      amount: 10_000,
      // 12.5% of 100.00 = 12.50 exactly.
      discount_amount: 1250,
      net_amount: 8750,
      tax_amount: null,
      tax_behavior: null,
      total_amount: 8750,
      product_id: main.product.id,
      product_price_id: main.prices[0]!.id,
      discount_id: discount.id,
      customer_id: customer.id,
      customer_email: customer.email,
      is_discount_applicable: true,
      is_free_product_price: false,
      is_payment_required: true,
      is_payment_setup_required: false,
      is_payment_form_required: true,
      metadata: { order_ref: "A-1", priority: 2, vip: true },
      customer_metadata: { segment: "smb" },
      customer_billing_address: { line1: "1 Main St", postal_code: "10001", city: "New York", state: "US-NY", country: "US" },
      // A US address always needs the full address, and the state.
      billing_address_fields: {
        country: "required",
        state: "required",
        city: "required",
        postal_code: "required",
        line1: "required",
        line2: "optional",
      },
      discount: { id: discount.id, type: "percentage", duration: "once", basis_points: 1250, code: "SAVE", name: discount.name },
    });
    expect(body.products.map((p: { id: string }) => p.id)).toEqual([main.product.id, custom.product.id, seats.product.id]);
    expect(body.product.id).toBe(main.product.id);
    expect(body.product.benefits).toEqual([
      expect.objectContaining({ type: "license_keys", description: "A license key", organization_id: orgId }),
    ]);
    expect(body.product.medias).toHaveLength(2);
    expect(body.product.medias[0]).toMatchObject({ mime_type: "image/png", service: "product_media", is_uploaded: true, size: 2048 });
    expect(Object.keys(body.prices).sort()).toEqual([main.product.id, custom.product.id, seats.product.id].sort());
    expect(body.prices[custom.product.id][0]).toMatchObject({
      amount_type: "custom",
      minimum_amount: 500,
      preset_amount: 1500,
      maximum_amount: null,
    });
    expect(body.prices[seats.product.id][0].seat_tiers).toMatchObject({
      minimum_seats: 1,
      maximum_seats: null,
      tiers: [
        { min_seats: 1, max_seats: 10, price_per_seat: 900 },
        { min_seats: 11, max_seats: null, price_per_seat: 700 },
      ],
    });
    expect(body.product_price).toMatchObject({ id: main.prices[0]!.id, amount_type: "fixed", price_amount: 10_000 });
    expect(new Date(body.expires_at).getTime() - new Date(body.created_at).getTime()).toBeGreaterThanOrEqual(86_399_000);
  });

  it("computes the flags of a free product: nothing to pay, nothing to discount", async () => {
    const free = await createProduct(ctx.deps, orgId, { prices: [{ amount_type: "fixed", price_amount: 0 }] });
    const checkout = await createCheckout(ctx.deps, orgId, { products: [free] });
    const response = await get(checkout.id);
    expect(response.statusCode, response.body).toBe(200);
    const body = response.json();
    expectReferenceResponse("checkouts:get", 200, body);
    expect(body).toMatchObject({
      amount: 0,
      total_amount: 0,
      is_free_product_price: true,
      is_discount_applicable: false,
      is_payment_required: false,
      is_payment_setup_required: false,
      is_payment_form_required: false,
      billing_address_fields: {
        country: "required",
        state: "disabled",
        city: "disabled",
        postal_code: "disabled",
        line1: "disabled",
        line2: "disabled",
      },
    });
  });

  it("takes the trial from the checkout override, else the product, only when allowed", async () => {
    const monthly = await createProduct(ctx.deps, orgId, {
      product: { recurring_interval: "month", recurring_interval_count: 1, trial_interval: "week", trial_interval_count: 2 },
    });
    const withProductTrial = await createCheckout(ctx.deps, orgId, { products: [monthly], values: { allow_trial: true } });
    const overridden = await createCheckout(ctx.deps, orgId, {
      products: [monthly],
      values: { allow_trial: true, trial_interval: "day", trial_interval_count: 5 },
    });
    const disallowed = await createCheckout(ctx.deps, orgId, { products: [monthly], values: { allow_trial: null } });
    expect((await get(withProductTrial.id)).json()).toMatchObject({
      active_trial_interval: "week",
      active_trial_interval_count: 2,
      is_payment_setup_required: true,
    });
    expect((await get(overridden.id)).json()).toMatchObject({
      active_trial_interval: "day",
      active_trial_interval_count: 5,
      trial_interval: "day",
    });
    expect((await get(disallowed.id)).json()).toMatchObject({ active_trial_interval: null, active_trial_interval_count: null });
  });

  it("emits fixed discounts with per-currency amounts and the deprecated amount/currency, repeating with months", async () => {
    const product = await createProduct(ctx.deps, orgId, { prices: [{ amount_type: "fixed", price_amount: 300, price_currency: "eur" }] });
    const discount = await createDiscount(ctx.deps, orgId, {
      type: "fixed",
      basis_points: null,
      amounts: JSON.stringify({ usd: 500, eur: 450 }),
      duration: "repeating",
      duration_in_months: 3,
    });
    const checkout = await createCheckout(ctx.deps, orgId, { products: [product], discount });
    const response = await get(checkout.id);
    expect(response.statusCode, response.body).toBe(200);
    const body = response.json();
    expectReferenceResponse("checkouts:get", 200, body);
    // The fixed discount never exceeds the amount.
    expect(body).toMatchObject({ currency: "eur", amount: 300, discount_amount: 300, net_amount: 0, is_payment_required: false });
    expect(body.discount).toEqual({
      id: discount.id,
      name: discount.name,
      code: null,
      type: "fixed",
      duration: "repeating",
      duration_in_months: 3,
      amount: 450,
      currency: "eur",
      amounts: { usd: 500, eur: 450 },
    });
  });

  it("requires the full address for business customers and CA states", async () => {
    const product = await createProduct(ctx.deps, orgId);
    const business = await createCheckout(ctx.deps, orgId, {
      products: [product],
      values: {
        is_business_customer: true,
        customer_billing_address: JSON.stringify({ country: "FR", line1: null, line2: null, city: null, postal_code: null, state: null }),
      },
    });
    const canada = await createCheckout(ctx.deps, orgId, {
      products: [product],
      values: {
        customer_billing_address: JSON.stringify({ country: "CA", line1: null, line2: null, city: null, postal_code: null, state: null }),
      },
    });
    expect((await get(business.id)).json().billing_address_fields).toEqual({
      country: "required",
      state: "optional",
      city: "required",
      postal_code: "required",
      line1: "required",
      line2: "optional",
    });
    expect((await get(canada.id)).json().billing_address_fields).toEqual({
      country: "required",
      state: "required",
      city: "disabled",
      postal_code: "disabled",
      line1: "disabled",
      line2: "disabled",
    });
  });

  it("accepts checkouts:write as well as checkouts:read, and the owner's personal token", async () => {
    const product = await createProduct(ctx.deps, orgId);
    const checkout = await createCheckout(ctx.deps, orgId, { products: [product] });
    const writeToken = await createOrganizationToken(ctx.deps, orgId, ["checkouts:write"]);
    expect((await get(checkout.id, writeToken)).statusCode).toBe(200);
    expect((await get(checkout.id, ctx.ownerToken)).statusCode).toBe(200);
  });

  it("does not change the status of an expired-by-time session when read", async () => {
    const product = await createProduct(ctx.deps, orgId);
    // Expired by the app's clock (frozen at the context's start), whatever the wall clock says now.
    const expiresAt = new Date(ctx.clock.now().getTime() - 60_000);
    const checkout = await createCheckout(ctx.deps, orgId, { products: [product], values: { expires_at: expiresAt } });
    const response = await get(checkout.id);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({ status: "open", expires_at: expiresAt.toISOString() });
  });

  describe("bad input", () => {
    let otherOrgCheckoutId: string;
    let knownCheckoutId: string;
    let noScopeToken: string;
    let otherOrgToken: string;
    beforeAll(async () => {
      const other = await createOrganization(ctx.deps);
      const otherProduct = await createProduct(ctx.deps, other.id);
      otherOrgCheckoutId = (await createCheckout(ctx.deps, other.id, { products: [otherProduct] })).id;
      otherOrgToken = await createOrganizationToken(ctx.deps, other.id, ["checkouts:read"]);
      const product = await createProduct(ctx.deps, orgId);
      knownCheckoutId = (await createCheckout(ctx.deps, orgId, { products: [product] })).id;
      noScopeToken = await createOrganizationToken(ctx.deps, orgId, ["orders:read"]);
    });

    badInputTable(
      () => ctx.request,
      [
        {
          name: "a non-UUID id",
          request: () => ({ method: "GET", url: "/v1/checkouts/not-a-uuid", token: readToken }),
          status: 422,
          loc: ["path", "id"],
        },
        {
          name: "a UUID that is not version 4",
          request: () => ({ method: "GET", url: "/v1/checkouts/6ba7b810-9dad-11d1-80b4-00c04fd430c8", token: readToken }),
          status: 422,
          loc: ["path", "id"],
        },
        {
          name: "an overlong id",
          request: () => ({ method: "GET", url: `/v1/checkouts/${"a".repeat(5000)}`, token: readToken }),
          status: 422,
          loc: ["path", "id"],
        },
        {
          name: "an unknown id",
          request: () => ({ method: "GET", url: "/v1/checkouts/3f2b1c4d-1111-4222-8333-123456789abc", token: readToken }),
          status: 404,
          error: "ResourceNotFound",
        },
        {
          name: "another organization's checkout",
          request: () => ({ method: "GET", url: `/v1/checkouts/${otherOrgCheckoutId}`, token: readToken }),
          status: 404,
          error: "ResourceNotFound",
        },
        {
          name: "our checkout with another organization's token",
          request: () => ({ method: "GET", url: `/v1/checkouts/${knownCheckoutId}`, token: otherOrgToken }),
          status: 404,
          error: "ResourceNotFound",
        },
        {
          name: "no token",
          request: () => ({ method: "GET", url: `/v1/checkouts/${knownCheckoutId}` }),
          status: 401,
          error: "Unauthorized",
        },
        {
          name: "a malformed token",
          request: () => ({ method: "GET", url: `/v1/checkouts/${knownCheckoutId}`, token: "polar_oat_nope" }),
          status: 401,
          error: "invalid_token",
        },
        {
          name: "an unknown token prefix",
          request: () => ({ method: "GET", url: `/v1/checkouts/${knownCheckoutId}`, token: "sk_live_123" }),
          status: 401,
          error: "invalid_token",
        },
        {
          name: "a token without the scope",
          request: () => ({ method: "GET", url: `/v1/checkouts/${knownCheckoutId}`, token: noScopeToken }),
          status: 403,
          error: "insufficient_scope",
        },
        {
          name: "a Basic credential",
          request: () => ({ method: "GET", url: `/v1/checkouts/${knownCheckoutId}`, headers: { authorization: "Basic dXNlcjpwYXNz" } }),
          status: 401,
          error: "Unauthorized",
        },
      ],
    );

    it("answers 404 for another organization's id with exactly the body of an unknown id", async () => {
      const foreign = await get(otherOrgCheckoutId);
      const unknown = await get("3f2b1c4d-1111-4222-8333-123456789abc");
      expect(foreign.statusCode).toBe(404);
      expect(unknown.statusCode).toBe(404);
      expect(foreign.json()).toEqual(unknown.json());
      expectReferenceResponse("checkouts:get", 404, foreign.json());
      expect(foreign.json()).toEqual({ error: "ResourceNotFound", detail: "Not found" });
    });

    it("answers 422 in the reference's validation shape", async () => {
      const response = await get("not-a-uuid");
      expect(response.statusCode).toBe(422);
      expectReferenceResponse("checkouts:get", 422, response.json());
      expect(response.json()).toEqual({
        error: "RequestValidationError",
        detail: [{ loc: ["path", "id"], msg: "Input should be a valid UUID version 4", type: "uuid_parsing", input: "not-a-uuid" }],
      });
    });
  });
});
