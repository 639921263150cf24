import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { badInputTable } from "../../helpers/bad-inputs.ts";
import type { TestContext } from "../../helpers/context.ts";
import {
  createCustomer,
  createDiscount,
  createOrganization,
  createOrganizationToken,
  createProduct,
  openOrganizationContext,
  registerForTax,
} from "../../helpers/factories.ts";
import { expectReferenceResponse } from "../../helpers/reference.ts";
import { FR_ADDRESS, eventsFor, writeCounts } from "./checkout-helpers.ts";

let ctx: TestContext;
let orgId: string;
let writeToken: string;

beforeAll(async () => {
  ({
    ctx,
    org: { id: orgId },
    tokens: [writeToken],
  } = await openOrganizationContext(["checkouts:write"]));
  await registerForTax(ctx.deps, orgId);
});
afterAll(() => ctx.close());

const create = (payload: unknown, token: string | null = writeToken) =>
  ctx.request({ method: "POST", url: "/v1/checkouts/", token, payload: payload as object });

describe("POST /v1/checkouts/", () => {
  it("opens a session, computes every field, records checkout.created and schedules its expiry", async () => {
    const main = await createProduct(ctx.deps, orgId, {
      product: { name: "Pro" },
      prices: [{ amount_type: "fixed", price_amount: 10_000 }],
    });
    const other = await createProduct(ctx.deps, orgId, { prices: [{ amount_type: "fixed", price_amount: 500 }] });
    const discount = await createDiscount(ctx.deps, orgId, { basis_points: 2500 });
    const response = await create({
      products: [main.product.id, other.product.id],
      discount_id: discount.id,
      customer_email: "buyer@example.com",
      metadata: { ref: "A1" },
      success_url: "https://shop.test/done?checkout_id={CHECKOUT_ID}",
    });
    expect(response.statusCode, response.body).toBe(201);
    const body = response.json();
    expectReferenceResponse("checkouts:create", 201, body);
    expect(body).toMatchObject({
      status: "open",
      organization_id: orgId,
      product_id: main.product.id,
      product_price_id: main.prices[0]!.id,
      currency: "usd",
      amount: 10_000,
      discount_amount: 2500,
      net_amount: 7500,
      tax_amount: null,
      tax_behavior: null,
      total_amount: 7500,
      discount_id: discount.id,
      customer_email: "buyer@example.com",
      metadata: { ref: "A1" },
      allow_discount_codes: true,
      require_billing_address: false,
      allow_trial: true,
      is_payment_required: true,
      is_payment_form_required: true,
      success_url: `https://shop.test/done?checkout_id=${body.id}`,
      url: `https://checkout.test/checkout/${body.client_secret}`,
    });
    expect(body.client_secret).toMatch(/^polar_c_[A-Za-z0-9]{43}$/);
    expect(new Date(body.expires_at).getTime() - new Date(body.created_at).getTime()).toBe(86_400_000);
    expect(await eventsFor(ctx, body.id)).toEqual(["checkout.created"]);
    const job = await ctx.deps.db
      .selectFrom("graphile_worker.jobs" as never)
      .select(["run_at" as never, "key" as never])
      .where("key" as never, "=", `checkout.expire:${body.id}` as never)
      .executeTakeFirst();
    expect(job).toBeDefined();
    expect(new Date((job as unknown as { run_at: Date }).run_at).toISOString()).toBe(body.expires_at);
  });

  it("computes exclusive VAT once the address is known, and reverse-charges an EU business with a valid VAT number", async () => {
    const product = await createProduct(ctx.deps, orgId, { prices: [{ amount_type: "fixed", price_amount: 1999 }] });
    const consumer = (await create({ products: [product.product.id], customer_billing_address: FR_ADDRESS })).json();
    // 20% of 19.99 = 3.998 → 4.00.
    expect(consumer).toMatchObject({
      tax_amount: 400,
      tax_behavior: "exclusive",
      net_amount: 1999,
      total_amount: 2399,
      require_billing_address: true,
    });
    const business = (
      await create({
        products: [product.product.id],
        customer_billing_address: FR_ADDRESS,
        is_business_customer: true,
        customer_tax_id: "61954506077",
        customer_billing_name: "ACME SAS",
      })
    ).json();
    expect(business).toMatchObject({
      tax_amount: 0,
      tax_behavior: "exclusive",
      total_amount: 1999,
      customer_tax_id: "FR61954506077",
      is_business_customer: true,
    });
    const countryOnly = (await create({ products: [product.product.id], customer_billing_address: { country: "DE" } })).json();
    expect(countryOnly).toMatchObject({ tax_amount: 380, total_amount: 2379, require_billing_address: false });
    const untaxed = (await create({ products: [product.product.id], customer_billing_address: { country: "BR" } })).json();
    expect(untaxed).toMatchObject({ tax_amount: 0, total_amount: 1999 });
  });

  it("takes the tax out of inclusive prices", async () => {
    const product = await createProduct(ctx.deps, orgId, {
      prices: [{ amount_type: "fixed", price_amount: 1200, tax_behavior: "inclusive" }],
    });
    const body = (await create({ products: [product.product.id], customer_billing_address: { country: "GB" } })).json();
    // 12.00 includes 20% VAT: 2.00 of tax, 10.00 net.
    expect(body).toMatchObject({ amount: 1200, tax_amount: 200, net_amount: 1000, total_amount: 1200, tax_behavior: "inclusive" });
  });

  it("pre-fills from an existing customer and turns a business customer on", async () => {
    const customer = await createCustomer(ctx.deps, orgId, {
      billing_name: "Globex Ltd",
      billing_address: JSON.stringify({ country: "GB", line1: "1 Lane", line2: null, city: "London", postal_code: "E1", state: null }),
    });
    const product = await createProduct(ctx.deps, orgId);
    const response = await create({ products: [product.product.id], customer_id: customer.id });
    expect(response.statusCode, response.body).toBe(201);
    const body = response.json();
    expectReferenceResponse("checkouts:create", 201, body);
    expect(body).toMatchObject({
      customer_id: customer.id,
      customer_email: customer.email,
      customer_billing_name: "Globex Ltd",
      is_business_customer: true,
      tax_amount: 500,
      billing_address_fields: { line1: "required", city: "required", postal_code: "required" },
    });
  });

  it("computes trials, seats and custom amounts", async () => {
    const monthly = await createProduct(ctx.deps, orgId, {
      product: { recurring_interval: "month", recurring_interval_count: 1, trial_interval: "day", trial_interval_count: 14 },
    });
    const trial = (await create({ products: [monthly.product.id] })).json();
    expect(trial).toMatchObject({
      active_trial_interval: "day",
      active_trial_interval_count: 14,
      is_payment_required: false,
      is_payment_setup_required: true,
      is_payment_form_required: true,
    });
    expect(new Date(trial.trial_end).getTime()).toBe(ctx.clock.now().getTime() + 14 * 86_400_000);
    const noTrial = (await create({ products: [monthly.product.id], allow_trial: false })).json();
    expect(noTrial).toMatchObject({ trial_end: null, active_trial_interval: null, is_payment_required: true });

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
    expect((await create({ products: [seats.product.id], seats: 12 })).json()).toMatchObject({ seats: 12, amount: 8400 });
    const custom = await createProduct(ctx.deps, orgId, {
      prices: [{ amount_type: "custom", minimum_amount: 500, maximum_amount: 10_000, preset_amount: 1500 }],
    });
    expect((await create({ products: [custom.product.id] })).json()).toMatchObject({ amount: 1500 });
    expect((await create({ products: [custom.product.id], amount: 4200 })).json()).toMatchObject({ amount: 4200 });
  });

  it("lets the owner's personal token open a session in the products' organization", async () => {
    const product = await createProduct(ctx.deps, orgId);
    const response = await create({ products: [product.product.id] }, ctx.ownerToken);
    expect(response.statusCode).toBe(201);
    expect(response.json().organization_id).toBe(orgId);
  });

  describe("bad input", () => {
    let productId: string;
    let eurOnlyId: string;
    let foreignProductId: string;
    let foreignDiscountId: string;
    let usedUpDiscountId: string;
    let otherProductDiscountId: string;
    let seatProductId: string;
    let customProductId: string;
    let readOnlyToken: string;
    beforeAll(async () => {
      productId = (await createProduct(ctx.deps, orgId)).product.id;
      eurOnlyId = (await createProduct(ctx.deps, orgId, { prices: [{ amount_type: "fixed", price_amount: 100, price_currency: "eur" }] }))
        .product.id;
      seatProductId = (
        await createProduct(ctx.deps, orgId, {
          prices: [{ amount_type: "seat_based", seat_tiers: JSON.stringify([{ min_seats: 2, max_seats: 5, price_per_seat: 100 }]) }],
        })
      ).product.id;
      customProductId = (
        await createProduct(ctx.deps, orgId, { prices: [{ amount_type: "custom", minimum_amount: 500, maximum_amount: 1000 }] })
      ).product.id;
      const other = await createOrganization(ctx.deps);
      foreignProductId = (await createProduct(ctx.deps, other.id)).product.id;
      foreignDiscountId = (await createDiscount(ctx.deps, other.id)).id;
      usedUpDiscountId = (await createDiscount(ctx.deps, orgId, { max_redemptions: 1, redemptions_count: 1 })).id;
      const elsewhere = await createProduct(ctx.deps, orgId);
      const restricted = await createDiscount(ctx.deps, orgId);
      await ctx.deps.db
        .insertInto("discount_products")
        .values({ organization_id: orgId, discount_id: restricted.id, product_id: elsewhere.product.id })
        .execute();
      otherProductDiscountId = restricted.id;
      readOnlyToken = await createOrganizationToken(ctx.deps, orgId, ["checkouts:read"]);
    });
    let before: Record<string, number>;
    beforeAll(async () => {
      before = await writeCounts(ctx);
    });
    const post = (payload: unknown, token?: string | null) => () => ({
      method: "POST" as const,
      url: "/v1/checkouts/",
      token: token === undefined ? writeToken : token,
      payload: payload as object,
    });

    badInputTable(
      () => ctx.request,
      [
        { name: "no body fields", request: post({}), status: 422, loc: ["body", "products"] },
        { name: "an empty product list", request: post({ products: [] }), status: 422, loc: ["body", "products"] },
        { name: "a non-UUID product", request: post({ products: ["nope"] }), status: 422, loc: ["body", "products", 0] },
        { name: "products as a string", request: post({ products: "x" }), status: 422, loc: ["body", "products"] },
        {
          name: "an unknown product",
          request: post({ products: ["3f2b1c4d-1111-4222-8333-123456789abc"] }),
          status: 422,
          loc: ["body", "products", 0],
        },
        {
          name: "another organization's product",
          request: () => post({ products: [foreignProductId] })(),
          status: 422,
          loc: ["body", "products", 0],
        },
        {
          name: "a product listed twice",
          request: () => post({ products: [productId, productId] })(),
          status: 422,
          loc: ["body", "products", 1],
        },
        {
          name: "a currency the product has no price in",
          request: () => post({ products: [eurOnlyId], currency: "usd" })(),
          status: 422,
          loc: ["body", "products", 0],
        },
        {
          name: "an unknown currency",
          request: () => post({ products: [productId], currency: "xyz" })(),
          status: 422,
          loc: ["body", "currency"],
        },
        {
          name: "another organization's discount",
          request: () => post({ products: [productId], discount_id: foreignDiscountId })(),
          status: 422,
          loc: ["body", "discount_id"],
        },
        {
          name: "a used-up discount",
          request: () => post({ products: [productId], discount_id: usedUpDiscountId })(),
          status: 422,
          loc: ["body", "discount_id"],
        },
        {
          name: "a discount for another product",
          request: () => post({ products: [productId], discount_id: otherProductDiscountId })(),
          status: 422,
          loc: ["body", "discount_id"],
        },
        {
          name: "seats below the tiers",
          request: () => post({ products: [seatProductId], seats: 1 })(),
          status: 422,
          loc: ["body", "seats"],
        },
        {
          name: "seats above max_seats",
          request: () => post({ products: [seatProductId], seats: 4, max_seats: 3 })(),
          status: 422,
          loc: ["body", "seats"],
        },
        {
          name: "min_seats above max_seats",
          request: () => post({ products: [seatProductId], min_seats: 4, max_seats: 3 })(),
          status: 422,
          loc: ["body", "min_seats"],
        },
        {
          name: "a custom amount below the minimum",
          request: () => post({ products: [customProductId], amount: 499 })(),
          status: 422,
          loc: ["body", "amount"],
        },
        { name: "a negative amount", request: () => post({ products: [productId], amount: -1 })(), status: 422, loc: ["body", "amount"] },
        {
          name: "an invalid email",
          request: () => post({ products: [productId], customer_email: "not-an-email" })(),
          status: 422,
          loc: ["body", "customer_email"],
        },
        {
          name: "an overlong name",
          request: () => post({ products: [productId], customer_name: "x".repeat(257) })(),
          status: 422,
          loc: ["body", "customer_name"],
        },
        {
          name: "an invalid IP address",
          request: () => post({ products: [productId], customer_ip_address: "999.1.1.1" })(),
          status: 422,
          loc: ["body", "customer_ip_address"],
        },
        {
          name: "an invalid EU tax ID",
          request: () => post({ products: [productId], customer_billing_address: { country: "FR" }, customer_tax_id: "FR123" })(),
          status: 422,
          loc: ["body", "customer_tax_id"],
        },
        {
          name: "a tax ID without a country",
          request: () => post({ products: [productId], customer_tax_id: "FR61954506077" })(),
          status: 422,
          loc: ["body", "customer_billing_address"],
        },
        {
          name: "a sanctioned billing country",
          request: () => post({ products: [productId], customer_billing_address: { country: "RU" } })(),
          status: 422,
          loc: ["body", "customer_billing_address", "country"],
        },
        {
          name: "a non-http success URL",
          request: () => post({ products: [productId], success_url: "not a url" })(),
          status: 422,
          loc: ["body", "success_url"],
        },
        {
          name: "an unknown customer",
          request: () => post({ products: [productId], customer_id: "3f2b1c4d-1111-4222-8333-123456789abc" })(),
          status: 422,
          loc: ["body", "customer_id"],
        },
        {
          name: "a subscription to upgrade",
          request: () => post({ products: [productId], subscription_id: "3f2b1c4d-1111-4222-8333-123456789abc" })(),
          status: 422,
          loc: ["body", "subscription_id"],
        },
        { name: "ad-hoc prices", request: () => post({ products: [productId], prices: {} })(), status: 422, loc: ["body", "prices"] },
        {
          name: "metadata with too long a key",
          request: () => post({ products: [productId], metadata: { ["k".repeat(41)]: "v" } })(),
          status: 422,
        },
        {
          name: "a trial count of zero",
          request: () => post({ products: [productId], trial_interval_count: 0 })(),
          status: 422,
          loc: ["body", "trial_interval_count"],
        },
        { name: "no token", request: () => post({ products: [productId] }, null)(), status: 401, error: "Unauthorized" },
        {
          name: "a token without checkouts:write",
          request: () => post({ products: [productId] }, readOnlyToken)(),
          status: 403,
          error: "insufficient_scope",
        },
      ],
      async () => expect(await writeCounts(ctx)).toEqual(before),
    );
  });
});
