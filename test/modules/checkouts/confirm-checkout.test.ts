import { sql } from "kysely";
import { createHmac } from "node:crypto";
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
import { FR_ADDRESS, US_ADDRESS, eventsFor, writeCounts, openCheckoutThroughApi } from "./checkout-helpers.ts";

let ctx: TestContext;
let org: { id: string; slug: string };
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
const confirm = (secret: string, payload: Record<string, unknown>) =>
  ctx.request({ method: "POST", url: `/v1/checkouts/client/${secret}/confirm`, payload });
const readBack = async (id: string) => (await ctx.request({ method: "GET", url: `/v1/checkouts/${id}`, token: ctx.ownerToken })).json();
const ordersOf = (checkoutId: string) => ctx.deps.db.selectFrom("orders").selectAll().where("checkout_id", "=", checkoutId).execute();
const buyer = { customer_email: "ada@example.com", customer_name: "Ada", customer_billing_address: FR_ADDRESS };

describe("POST /v1/checkouts/client/{client_secret}/confirm", () => {
  it("keeps a buyer's tax ID on the customer and the order only under a format of the reference's enum", async () => {
    const product = await createProduct(ctx.deps, org.id, {
      product: { name: "Tax IDs" },
      prices: [{ amount_type: "fixed", price_amount: 1000 }],
    });
    const storedFor = async (address: Record<string, unknown>, taxId: string, email: string) => {
      const session = await open({
        products: [product.product.id],
        customer_billing_address: address,
        is_business_customer: true,
        customer_billing_name: "Buyer Ltd",
        customer_tax_id: taxId,
      });
      const response = await confirm(session.client_secret, {
        customer_email: email,
        customer_name: "Buyer",
        confirmation_token_id: "tok_visa",
      });
      expect(response.statusCode, response.body).toBe(200);
      const customerId = (await readBack(session.id)).customer_id as string;
      const customer = await ctx.deps.db.selectFrom("customers").select("tax_id").where("id", "=", customerId).executeTakeFirstOrThrow();
      const [order] = await ordersOf(session.id);
      expect(order?.tax_id).toEqual(customer.tax_id);
      return { onSession: session.customer_tax_id, stored: customer.tax_id };
    };
    // Serbia's number is a PIB (never `rs_vat`); a Norwegian organisation number without MVA and a US
    // number have no verified format, so they stay on the session only.
    expect(
      await storedFor(
        { country: "RS", line1: "Knez Mihailova 1", city: "Beograd", postal_code: "11000" },
        "RS 101 134 702",
        "pib@example.rs",
      ),
    ).toEqual({ onSession: "101134702", stored: ["101134702", "rs_pib"] });
    expect(
      await storedFor({ country: "NO", line1: "Karl Johans gate 1", city: "Oslo", postal_code: "0154" }, "974760673", "org@example.no"),
    ).toEqual({ onSession: "974760673", stored: null });
    expect(await storedFor(US_ADDRESS, "12-3456789", "ein@example.com")).toEqual({ onSession: "123456789", stored: null });
  });

  it("charges, creates the customer, a paid order with its numbers, grants a license key and mints a session", async () => {
    const product = await createProduct(ctx.deps, org.id, {
      product: { name: "Pro" },
      prices: [{ amount_type: "fixed", price_amount: 10_000 }],
      benefits: [
        {
          type: "license_keys",
          description: "Key",
          properties: {
            prefix: " pro ",
            expires: { ttl: 1, timeframe: "year" },
            activations: { limit: 3, enable_customer_admin: true },
            limit_usage: 100,
          },
        },
      ],
    });
    const session = await open({ products: [product.product.id], metadata: { ref: "X" } });
    const response = await confirm(session.client_secret, { ...buyer, confirmation_token_id: "tok_visa" });
    expect(response.statusCode, response.body).toBe(200);
    const body = response.json();
    expectReferenceResponse("checkouts:client_confirm", 200, body);
    expect(body).toMatchObject({
      id: session.id,
      status: "confirmed",
      amount: 10_000,
      tax_amount: 2000,
      total_amount: 12_000,
      organization: { id: org.id, slug: org.slug },
    });
    expect(body.customer_session_token).toMatch(/^polar_cst_[A-Za-z0-9]{43}$/);
    expect(body.metadata).toBeUndefined();

    const after = await readBack(session.id);
    expect(after.status).toBe("succeeded");
    const customer = await ctx.deps.db.selectFrom("customers").selectAll().where("id", "=", after.customer_id).executeTakeFirstOrThrow();
    expect(customer).toMatchObject({ email: "ada@example.com", name: "Ada", organization_id: org.id });
    const [order] = await ordersOf(session.id);
    expect(order).toMatchObject({
      status: "paid",
      billing_reason: "purchase",
      customer_id: customer.id,
      product_id: product.product.id,
      subtotal_amount: 10_000,
      discount_amount: 0,
      net_amount: 10_000,
      tax_amount: 2000,
      total_amount: 12_000,
      currency: "usd",
      billing_name: "Ada",
      billing_address: { country: "FR", line1: "1 rue de Rivoli", line2: null, city: "Paris", postal_code: "75001", state: null },
      description: "Pro",
      metadata: { ref: "X" },
    });
    const shortId = customer.short_id;
    let code = "";
    for (let rest = shortId; code === "" || rest > 0; rest = Math.floor(rest / 26)) code = String.fromCharCode(65 + (rest % 26)) + code;
    expect(order!.invoice_number).toBe(`${org.slug.toUpperCase()}-${code.padStart(8, "A")}-0001`);
    expect(order!.receipt_number).toBe(`RCPT-${code.padStart(8, "A")}-0001`);
    const items = await ctx.deps.db.selectFrom("order_items").selectAll().where("order_id", "=", order!.id).execute();
    expect(items).toEqual([
      expect.objectContaining({
        label: "Pro",
        amount: 10_000,
        tax_amount: 2000,
        proration: false,
        product_price_id: product.prices[0]!.id,
      }),
    ]);

    const keys = await ctx.deps.db.selectFrom("license_keys").selectAll().where("customer_id", "=", customer.id).execute();
    expect(keys).toHaveLength(1);
    expect(keys[0]!.key).toMatch(/^PRO-[0-9A-F]{8}-[0-9A-F]{4}-4[0-9A-F]{3}-[89AB][0-9A-F]{3}-[0-9A-F]{12}$/);
    expect(keys[0]).toMatchObject({ status: "granted", limit_activations: 3, limit_usage: 100, usage: 0 });
    expect(keys[0]!.expires_at!.getUTCFullYear()).toBe(ctx.clock.now().getUTCFullYear() + 1);
    const grants = await ctx.deps.db.selectFrom("benefit_grants").selectAll().where("order_id", "=", order!.id).execute();
    expect(grants).toEqual([
      expect.objectContaining({
        customer_id: customer.id,
        properties: { license_key_id: keys[0]!.id, display_key: `****-${keys[0]!.key.slice(-6)}` },
      }),
    ]);
    const sessions = await ctx.deps.db.selectFrom("customer_sessions").selectAll().where("customer_id", "=", customer.id).execute();
    expect(sessions).toHaveLength(1);
    // Stored only as its keyed hash (HMAC-SHA256 under the server secret).
    expect(sessions[0]!.token_hash).toBe(createHmac("sha256", ctx.deps.secret).update(body.customer_session_token).digest("hex"));
    expect(await eventsFor(ctx, session.id)).toEqual([
      "checkout.created",
      "checkout.updated",
      "order.created",
      "order.paid",
      "checkout.updated",
    ]);
    // Both order events carry the full Order, as GET /v1/orders/{id} answers it.
    const orderRead = (await ctx.request({ method: "GET", url: `/v1/orders/${order!.id}`, token: ctx.ownerToken })).json();
    const orderEvents = await ctx.deps.db
      .selectFrom("webhook_events")
      .select(["type", "payload"])
      .where("type", "in", ["order.created", "order.paid"])
      .where(sql<boolean>`payload->'data'->>'id' = ${order!.id}`)
      .orderBy("type")
      .execute();
    expect(orderEvents.map((e) => e.type)).toEqual(["order.created", "order.paid"]);
    for (const { payload } of orderEvents) {
      expectReferenceResponse("orders:get", 200, payload.data);
      expect(payload.data).toEqual(orderRead);
    }
  });

  it("reopens the session on a declined card, gives the discount back, and succeeds on retry", async () => {
    const product = await createProduct(ctx.deps, org.id);
    const discount = await createDiscount(ctx.deps, org.id, { max_redemptions: 5 });
    const session = await open({ products: [product.product.id], discount_id: discount.id });
    const declined = await confirm(session.client_secret, { ...buyer, confirmation_token_id: "tok_chargeDeclinedInsufficientFunds" });
    expect(declined.statusCode).toBe(400);
    expectReferenceResponse("checkouts:client_confirm", 400, declined.json());
    expect(declined.json()).toEqual({ error: "PaymentError", detail: "Your card was declined." });
    expect((await readBack(session.id)).status).toBe("open");
    expect(await ordersOf(session.id)).toEqual([]);
    const afterDecline = await ctx.deps.db
      .selectFrom("discounts")
      .select("redemptions_count")
      .where("id", "=", discount.id)
      .executeTakeFirstOrThrow();
    expect(afterDecline.redemptions_count).toBe(0);

    expect((await confirm(session.client_secret, { confirmation_token_id: "tok_mastercard" })).statusCode).toBe(200);
    expect((await readBack(session.id)).status).toBe("succeeded");
    const [order] = await ordersOf(session.id);
    expect(order).toMatchObject({
      discount_id: discount.id,
      subtotal_amount: 2500,
      discount_amount: 250,
      net_amount: 2250,
      tax_amount: 450,
      total_amount: 2700,
    });
  });

  it("fails the session on a processing error; it cannot be confirmed again", async () => {
    const product = await createProduct(ctx.deps, org.id);
    const session = await open({ products: [product.product.id] });
    const failed = await confirm(session.client_secret, { ...buyer, confirmation_token_id: "tok_chargeDeclinedProcessingError" });
    expect(failed.statusCode).toBe(400);
    expect(failed.json().error).toBe("PaymentError");
    expect((await readBack(session.id)).status).toBe("failed");
    const again = await confirm(session.client_secret, { confirmation_token_id: "tok_visa" });
    expect(again.statusCode).toBe(403);
    expectReferenceResponse("checkouts:client_confirm", 403, again.json());
    expect(again.json()).toEqual({ error: "NotOpenCheckout", detail: "Checkout is not open." });
  });

  it("completes a free product without a payment form, and without a receipt", async () => {
    const free = await createProduct(ctx.deps, org.id, { prices: [{ amount_type: "free", price_amount: null }] });
    const session = await open({ products: [free.product.id] });
    const response = await confirm(session.client_secret, { customer_email: "free@example.com" });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toMatchObject({ is_payment_form_required: false, total_amount: 0 });
    const [order] = await ordersOf(session.id);
    expect(order).toMatchObject({ status: "paid", total_amount: 0, receipt_number: null, payment_reference: null });
    expect(order!.invoice_number).toMatch(/-0001$/);
  });

  it("starts a trial with a saved card and a zero order, billed as a subscription start", async () => {
    const monthly = await createProduct(ctx.deps, org.id, {
      product: { recurring_interval: "month", recurring_interval_count: 1, trial_interval: "day", trial_interval_count: 7 },
    });
    const session = await open({ products: [monthly.product.id], ...buyer });
    expect((await confirm(session.client_secret, {})).json().detail).toEqual([
      expect.objectContaining({ loc: ["body", "confirmation_token_id"], type: "missing" }),
    ]);
    const response = await confirm(session.client_secret, { confirmation_token_id: "tok_visa" });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toMatchObject({ is_payment_required: false, is_payment_setup_required: true, active_trial_interval: "day" });
    const [order] = await ordersOf(session.id);
    expect(order).toMatchObject({
      billing_reason: "subscription_create",
      subtotal_amount: 0,
      total_amount: 0,
      receipt_number: null,
      payment_reference: null,
    });
  });

  it("completes a fully discounted total without a payment form", async () => {
    const product = await createProduct(ctx.deps, org.id);
    const discount = await createDiscount(ctx.deps, org.id, { basis_points: 10_000 });
    const session = await open({ products: [product.product.id], discount_id: discount.id });
    const response = await confirm(session.client_secret, { customer_email: "gift@example.com" });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toMatchObject({ total_amount: 0, is_payment_required: false, is_payment_form_required: false });
    expect(await ordersOf(session.id)).toHaveLength(1);
  });

  it("produces one order when the same session is confirmed twice at once", async () => {
    const product = await createProduct(ctx.deps, org.id);
    const session = await open({ products: [product.product.id], ...buyer });
    const responses = await Promise.all([0, 1, 2].map(() => confirm(session.client_secret, { confirmation_token_id: "tok_visa" })));
    expect(responses.map((r) => r.statusCode).sort()).toEqual([200, 403, 403]);
    expect(await ordersOf(session.id)).toHaveLength(1);
  });

  it("redeems a discount exactly max_redemptions times when fifty sessions race for it", async () => {
    const product = await createProduct(ctx.deps, org.id);
    const discount = await createDiscount(ctx.deps, org.id, { code: "RACE10", max_redemptions: 10 });
    const sessions = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        open({ products: [product.product.id], discount_id: discount.id, ...buyer, customer_email: `racer${i}@example.com` }),
      ),
    );
    const responses = await Promise.all(sessions.map((s) => confirm(s.client_secret, { confirmation_token_id: "tok_visa" })));
    const statuses = responses.map((r) => r.statusCode);
    expect(statuses.filter((s) => s === 200)).toHaveLength(10);
    expect(statuses.filter((s) => s === 403)).toHaveLength(40);
    expect(new Set(responses.filter((r) => r.statusCode === 403).map((r) => r.json().error))).toEqual(
      new Set(["DiscountRedemptionLimitReached"]),
    );
    const row = await ctx.deps.db
      .selectFrom("discounts")
      .select("redemptions_count")
      .where("id", "=", discount.id)
      .executeTakeFirstOrThrow();
    expect(row.redemptions_count).toBe(10);
    const orders = await ctx.deps.db.selectFrom("orders").select("id").where("discount_id", "=", discount.id).execute();
    expect(orders).toHaveLength(10);
  });

  it("numbers invoices per customer without gaps when one customer's orders are created in parallel", async () => {
    const customer = await createCustomer(ctx.deps, org.id);
    const product = await createProduct(ctx.deps, org.id);
    const sessions = await Promise.all(
      Array.from({ length: 8 }, () =>
        open({ products: [product.product.id], customer_id: customer.id, customer_billing_address: FR_ADDRESS }),
      ),
    );
    const responses = await Promise.all(sessions.map((s) => confirm(s.client_secret, { confirmation_token_id: "tok_visa" })));
    expect(responses.map((r) => r.statusCode)).toEqual(Array(8).fill(200));
    const orders = await ctx.deps.db
      .selectFrom("orders")
      .select(["invoice_number", "receipt_number"])
      .where("customer_id", "=", customer.id)
      .execute();
    const suffixes = (values: (string | null)[]) => values.map((v) => v!.slice(-4)).sort();
    const expected = Array.from({ length: 8 }, (_, i) => String(i + 1).padStart(4, "0"));
    expect(suffixes(orders.map((o) => o.invoice_number))).toEqual(expected);
    expect(suffixes(orders.map((o) => o.receipt_number))).toEqual(expected);
  });

  it("links later purchases to the customer with the same email or external id, concurrently too", async () => {
    const product = await createProduct(ctx.deps, org.id);
    const sessions = await Promise.all([
      open({ products: [product.product.id], customer_email: "Same@Example.com", customer_billing_address: FR_ADDRESS }),
      open({ products: [product.product.id], customer_email: "same@example.com", customer_billing_address: FR_ADDRESS }),
      open({
        products: [product.product.id],
        customer_email: "other@example.com",
        external_customer_id: "crm-42",
        customer_billing_address: FR_ADDRESS,
      }),
      open({
        products: [product.product.id],
        customer_email: "changed@example.com",
        external_customer_id: "crm-42",
        customer_billing_address: FR_ADDRESS,
      }),
    ]);
    const responses = await Promise.all(sessions.map((s) => confirm(s.client_secret, { confirmation_token_id: "tok_visa" })));
    expect(responses.map((r) => r.statusCode)).toEqual([200, 200, 200, 200]);
    const customerIds = await Promise.all(sessions.map(async (s) => (await ordersOf(s.id))[0]!.customer_id));
    expect(customerIds[0]).toBe(customerIds[1]);
    expect(customerIds[2]).toBe(customerIds[3]);
    expect(customerIds[0]).not.toBe(customerIds[2]);
  });

  it("numbers invoices per organization with its own prefix when asked to", async () => {
    const numbered = await createOrganization(ctx.deps);
    await ctx.deps.db
      .updateTable("organizations")
      .set({ invoice_numbering: "organization", invoice_prefix: "INV" })
      .where("id", "=", numbered.id)
      .execute();
    const numberedToken = await createOrganizationToken(ctx.deps, numbered.id, ["checkouts:write"]);
    const product = await createProduct(ctx.deps, numbered.id);
    const numbers: string[] = [];
    for (const email of ["a@example.com", "b@example.com"]) {
      const session = (
        await ctx.request({ method: "POST", url: "/v1/checkouts/", token: numberedToken, payload: { products: [product.product.id] } })
      ).json();
      expect(
        (await confirm(session.client_secret, { ...buyer, customer_email: email, confirmation_token_id: "tok_visa" })).statusCode,
      ).toBe(200);
      numbers.push((await ordersOf(session.id))[0]!.invoice_number!);
    }
    expect(numbers).toEqual(["INV-0001", "INV-0002"]);
  });

  it("answers 410 once the session has expired", async () => {
    const product = await createProduct(ctx.deps, org.id);
    const session = await open({ products: [product.product.id], ...buyer });
    ctx.clock.advance(86_401_000);
    try {
      const response = await confirm(session.client_secret, { confirmation_token_id: "tok_visa" });
      expect(response.statusCode).toBe(410);
      expectReferenceResponse("checkouts:client_confirm", 410, response.json());
      expect(response.json().error).toBe("ExpiredCheckoutError");
    } finally {
      ctx.clock.advance(-86_401_000);
    }
    expect(await ordersOf(session.id)).toEqual([]);
  });

  describe("bad input", () => {
    let secret: string;
    let businessSecret: string;
    let before: Record<string, number>;
    beforeAll(async () => {
      const product = await createProduct(ctx.deps, org.id);
      secret = (await open({ products: [product.product.id] })).client_secret;
      businessSecret = (
        await open({
          products: [product.product.id],
          is_business_customer: true,
          customer_email: "b@example.com",
          customer_billing_address: { country: "DE" },
        })
      ).client_secret;
      before = await writeCounts(ctx);
    });
    const post =
      (payload: unknown, which: () => string = () => secret) =>
      () => ({ method: "POST" as const, url: `/v1/checkouts/client/${which()}/confirm`, payload: payload as object });

    badInputTable(
      () => ctx.request,
      [
        {
          name: "no email",
          request: post({ customer_billing_address: FR_ADDRESS, confirmation_token_id: "tok_visa" }),
          status: 422,
          loc: ["body", "customer_email"],
        },
        {
          name: "no billing address for a paid session",
          request: post({ customer_email: "x@example.com", confirmation_token_id: "tok_visa" }),
          status: 422,
          loc: ["body", "customer_billing_address"],
        },
        {
          name: "a US address without its required lines",
          request: post({
            customer_email: "x@example.com",
            customer_billing_address: { country: "US", state: "US-NY" },
            confirmation_token_id: "tok_visa",
          }),
          status: 422,
          loc: ["body", "customer_billing_address", "line1"],
        },
        { name: "no confirmation token for a paid session", request: post(buyer), status: 422, loc: ["body", "confirmation_token_id"] },
        {
          name: "a business without billing name",
          request: post({ confirmation_token_id: "tok_visa" }, () => businessSecret),
          status: 422,
          loc: ["body", "customer_billing_name"],
        },
        {
          name: "a business without street address",
          request: post({ customer_billing_name: "ACME", confirmation_token_id: "tok_visa" }, () => businessSecret),
          status: 422,
          loc: ["body", "customer_billing_address", "line1"],
        },
        {
          name: "an unknown discount code",
          request: post({ ...buyer, discount_code: "NOPE", confirmation_token_id: "tok_visa" }),
          status: 422,
          loc: ["body", "discount_code"],
        },
        {
          name: "allow_trial true",
          request: post({ ...buyer, allow_trial: true, confirmation_token_id: "tok_visa" }),
          status: 422,
          loc: ["body", "allow_trial"],
        },
        {
          name: "a numeric token",
          request: post({ ...buyer, confirmation_token_id: 42 }),
          status: 422,
          loc: ["body", "confirmation_token_id"],
        },
        {
          name: "an unknown client secret",
          request: () => ({ method: "POST", url: "/v1/checkouts/client/polar_c_unknown/confirm", payload: buyer }),
          status: 404,
          error: "ResourceNotFound",
        },
        {
          name: "an overlong client secret",
          request: () => ({ method: "POST", url: `/v1/checkouts/client/${"a".repeat(300)}/confirm`, payload: buyer }),
          status: 422,
          loc: ["path", "client_secret"],
        },
        {
          name: "an invalid bearer token",
          request: () => ({ ...post(buyer)(), headers: { authorization: "Bearer polar_oat_nope" } }),
          status: 401,
          error: "invalid_token",
        },
      ],
      async () => expect(await writeCounts(ctx)).toEqual(before),
    );
  });
});
