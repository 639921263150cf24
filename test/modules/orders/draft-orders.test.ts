import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { badInputTable } from "../../helpers/bad-inputs.ts";
import { createTestContext, type TestContext } from "../../helpers/context.ts";
import { createCustomer, createOrganization, createOrganizationToken, createProduct, registerForTax } from "../../helpers/factories.ts";
import { expectReferenceResponse } from "../../helpers/reference.ts";

let ctx: TestContext;
let orgId: string;
let writeToken: string;
let readToken: string;
let otherToken: string;
let productId: string;
let taxedProductId: string;
let customerId: string;
let otherOrgCustomerId: string;

const GB_ADDRESS = JSON.stringify({ line1: "1 High St", line2: null, postal_code: "SW1A 1AA", city: "London", state: null, country: "GB" });
const UNKNOWN_ID = "3f2b1c4d-1111-4222-8333-123456789abc";

const enableOffSession = (organizationId: string) =>
  ctx.deps.db
    .updateTable("organizations")
    .set({ feature_settings: JSON.stringify({ off_session_charges_enabled: true }) })
    .where("id", "=", organizationId)
    .execute();

/** A saved sandbox card for the customer, made their default; `tok_chargeCustomerFail` declines every charge. */
async function giveCard(customer: string, token = "tok_visa") {
  const card = await ctx.deps.db
    .insertInto("payment_methods")
    .values({
      organization_id: orgId,
      customer_id: customer,
      processor_reference: `pm_sandbox_${token}_000000000000000000000000`,
      type: "card",
      brand: "visa",
      last4: "4242",
      exp_month: 12,
      exp_year: 2034,
      modified_at: null,
      deleted_at: null,
    })
    .returning("id")
    .executeTakeFirstOrThrow();
  await ctx.deps.db.updateTable("customers").set({ default_payment_method_id: card.id }).where("id", "=", customer).execute();
  return card.id;
}

beforeAll(async () => {
  ctx = await createTestContext();
  orgId = (await createOrganization(ctx.deps)).id;
  const otherOrgId = (await createOrganization(ctx.deps)).id;
  await enableOffSession(orgId);
  await enableOffSession(otherOrgId);
  await registerForTax(ctx.deps, orgId, [{ country: "GB" }]);
  writeToken = await createOrganizationToken(ctx.deps, orgId, ["orders:write"]);
  readToken = await createOrganizationToken(ctx.deps, orgId, ["orders:read"]);
  otherToken = await createOrganizationToken(ctx.deps, otherOrgId, ["orders:write"]);
  productId = (
    await createProduct(ctx.deps, orgId, {
      product: { name: "Tokens", is_tax_applicable: false },
      benefits: [{ type: "custom", description: "Priority support" }],
    })
  ).product.id;
  taxedProductId = (await createProduct(ctx.deps, orgId, { product: { name: "Course" } })).product.id;
  customerId = (await createCustomer(ctx.deps, orgId, { billing_address: GB_ADDRESS, billing_name: "Ada Ltd" })).id;
  otherOrgCustomerId = (await createCustomer(ctx.deps, otherOrgId)).id;
});
afterAll(() => ctx.close());

const create = (payload: object, token: string | null = writeToken) => ctx.request({ method: "POST", url: "/v1/orders/", token, payload });
const finalize = (id: string, payload: object = {}, token: string | null = writeToken) =>
  ctx.request({ method: "POST", url: `/v1/orders/${id}/finalize`, token, payload });
const eventTypes = async (orderId: string) =>
  (
    await ctx.deps.db
      .selectFrom("webhook_events")
      .select(["type", "payload"])
      .where("organization_id", "=", orgId)
      .orderBy("position")
      .execute()
  )
    .filter((row) => row.type.startsWith("order.") && JSON.stringify(row.payload).includes(orderId))
    .map((row) => row.type);
const stored = (id: string) => ctx.deps.db.selectFrom("orders").selectAll().where("id", "=", id).executeTakeFirstOrThrow();
const paymentsOf = (orderId: string) => ctx.deps.db.selectFrom("payments").selectAll().where("order_id", "=", orderId).execute();

async function draftFor(customer: string, payload: object = {}) {
  const response = await create({ customer_id: customer, product_id: productId, ...payload });
  expect(response.statusCode, response.body).toBe(201);
  return response.json<{ id: string }>().id;
}

describe("POST /v1/orders/", () => {
  it("creates a draft with its tax computed now, no invoice number, and sends order.created", async () => {
    const response = await create({ customer_id: customerId, product_id: taxedProductId, metadata: { ref: "A-1" } });
    expect(response.statusCode, response.body).toBe(201);
    const order = response.json();
    expectReferenceResponse("orders:create", 201, order);
    expect(order).toMatchObject({
      status: "draft",
      paid: false,
      billing_reason: "purchase",
      invoice_number: null,
      receipt_number: null,
      subtotal_amount: 2500,
      net_amount: 2500,
      tax_amount: 500,
      total_amount: 3000,
      currency: "usd",
      customer_id: customerId,
      product_id: taxedProductId,
      description: "Course",
      billing_name: "Ada Ltd",
      metadata: { ref: "A-1" },
    });
    expect(order.items).toEqual([expect.objectContaining({ label: "Course", amount: 2500, tax_amount: 500 })]);
    expect(await eventTypes(order.id)).toEqual(["order.created"]);
  });

  it("charges a custom amount under a custom description", async () => {
    const response = await create({ customer_id: customerId, product_id: productId, amount: 5000, description: "5,000 tokens" });
    expect(response.statusCode, response.body).toBe(201);
    expect(response.json()).toMatchObject({ total_amount: 5000, tax_amount: 0, description: "5,000 tokens" });
    expect(response.json().items).toEqual([expect.objectContaining({ label: "5,000 tokens", amount: 5000 })]);
  });

  it("refuses an organization without off-session charges, writing nothing", async () => {
    const closed = (await createOrganization(ctx.deps)).id;
    const customer = (await createCustomer(ctx.deps, closed)).id;
    const product = (await createProduct(ctx.deps, closed)).product.id;
    const token = await createOrganizationToken(ctx.deps, closed, ["orders:write"]);
    const response = await create({ customer_id: customer, product_id: product }, token);
    expect(response.statusCode, response.body).toBe(403);
    expect(response.json().error).toBe("OffSessionChargesNotEnabled");
    expect(await ctx.deps.db.selectFrom("orders").select("id").where("organization_id", "=", closed).execute()).toEqual([]);
  });

  describe("bad input", () => {
    let recurringId: string;
    let customPriceId: string;
    let noAddressId: string;
    beforeAll(async () => {
      recurringId = (await createProduct(ctx.deps, orgId, { product: { recurring_interval: "month", recurring_interval_count: 1 } }))
        .product.id;
      customPriceId = (
        await createProduct(ctx.deps, orgId, { prices: [{ amount_type: "custom", minimum_amount: 50, price_amount: null }] })
      ).product.id;
      noAddressId = (await createCustomer(ctx.deps, orgId)).id;
    });
    const post =
      (payload: object, token: string | null = writeToken) =>
      () => ({
        method: "POST" as const,
        url: "/v1/orders/",
        token,
        payload,
      });
    const valid = () => ({ customer_id: customerId, product_id: productId });
    let before = 0;
    const count = async () =>
      Number(
        (
          await ctx.deps.db
            .selectFrom("orders")
            .select((eb) => eb.fn.countAll<string>().as("n"))
            .executeTakeFirstOrThrow()
        ).n,
      );
    beforeAll(async () => {
      before = await count();
    });
    badInputTable(
      () => ctx.request,
      [
        { name: "no body", request: () => ({ method: "POST", url: "/v1/orders/", token: writeToken }), status: 422 },
        { name: "a missing customer_id", request: () => post({ product_id: productId })(), status: 422, loc: ["body", "customer_id"] },
        { name: "a missing product_id", request: () => post({ customer_id: customerId })(), status: 422, loc: ["body", "product_id"] },
        {
          name: "a non-UUID product_id",
          request: () => post({ ...valid(), product_id: "nope" })(),
          status: 422,
          loc: ["body", "product_id"],
        },
        { name: "a negative amount", request: () => post({ ...valid(), amount: -1 })(), status: 422, loc: ["body", "amount"] },
        { name: "a string amount", request: () => post({ ...valid(), amount: "100" })(), status: 422, loc: ["body", "amount"] },
        { name: "an amount under the minimum", request: () => post({ ...valid(), amount: 10 })(), status: 422, loc: ["body", "amount"] },
        {
          name: "an amount over the maximum",
          request: () => post({ ...valid(), amount: 100_000_000 })(),
          status: 422,
          loc: ["body", "amount"],
        },
        {
          name: "an overlong description",
          request: () => post({ ...valid(), description: "x".repeat(501) })(),
          status: 422,
          loc: ["body", "description"],
        },
        {
          name: "a currency without a price",
          request: () => post({ ...valid(), currency: "eur" })(),
          status: 422,
          loc: ["body", "currency"],
        },
        {
          name: "a recurring product",
          request: () => post({ ...valid(), product_id: recurringId })(),
          status: 422,
          loc: ["body", "product_id"],
        },
        {
          name: "a custom price",
          request: () => post({ ...valid(), product_id: customPriceId })(),
          status: 422,
          loc: ["body", "product_id"],
        },
        {
          name: "an unknown product",
          request: () => post({ ...valid(), product_id: UNKNOWN_ID })(),
          status: 422,
          loc: ["body", "product_id"],
        },
        {
          name: "a taxed product for a customer without a billing address",
          request: () => post({ customer_id: noAddressId, product_id: taxedProductId })(),
          status: 422,
          loc: ["body", "customer_id"],
        },
        {
          name: "another organization's customer",
          request: () => post({ ...valid(), customer_id: otherOrgCustomerId })(),
          status: 422,
          loc: ["body", "customer_id"],
        },
        {
          name: "another organization's product (its token)",
          request: () => post({ customer_id: otherOrgCustomerId, product_id: productId }, otherToken)(),
          status: 422,
          loc: ["body", "product_id"],
        },
        {
          name: "an organization token naming an organization",
          request: () => post({ ...valid(), organization_id: UNKNOWN_ID })(),
          status: 422,
          loc: ["body", "organization_id"],
        },
        { name: "a missing token", request: () => post(valid(), null)(), status: 401 },
        { name: "an unknown token", request: () => post(valid(), "polar_oat_nope")(), status: 401 },
        { name: "a read-only token", request: () => post(valid(), readToken)(), status: 403 },
      ],
      async () => expect(await count()).toBe(before),
    );
  });
});

describe("POST /v1/orders/{id}/finalize", () => {
  it("charges the default card, numbers the invoice only now and sends order.updated and order.paid, benefits and email", async () => {
    const customer = (await createCustomer(ctx.deps, orgId, { billing_address: GB_ADDRESS })).id;
    await giveCard(customer);
    const id = await draftFor(customer);
    const response = await finalize(id);
    expect(response.statusCode, response.body).toBe(200);
    const order = response.json();
    expectReferenceResponse("orders:finalize", 200, order);
    expect(order).toMatchObject({ id, status: "paid", paid: true, invoice_number: expect.any(String), receipt_number: expect.any(String) });
    expect(await paymentsOf(id)).toEqual([expect.objectContaining({ status: "succeeded", amount: 2500 })]);
    expect(await eventTypes(id)).toEqual(["order.created", "order.updated", "order.paid"]);
    const grants = await ctx.deps.db.selectFrom("benefit_grants").select("order_id").where("customer_id", "=", customer).execute();
    expect(grants).toEqual([{ order_id: id }]);
    const emails = await ctx.deps.db.selectFrom("emails").select("template").where("dedupe_key", "like", `%${id}`).execute();
    expect(emails.length).toBe(1);

    const again = await finalize(id);
    expect(again.statusCode).toBe(412);
    expect(again.json()).toEqual({ error: "OrderNotDraft", detail: expect.any(String) });
  });

  it("charges once when finalized twice at the same time", async () => {
    const customer = (await createCustomer(ctx.deps, orgId)).id;
    await giveCard(customer);
    const id = await draftFor(customer);
    const answers = await Promise.all([finalize(id), finalize(id), finalize(id)]);
    expect(answers.map((r) => r.statusCode).sort()).toEqual([200, 412, 412]);
    expect(await paymentsOf(id)).toHaveLength(1);
    expect(await eventTypes(id)).toEqual(["order.created", "order.updated", "order.paid"]);
  });

  it("answers 402 without a payment method, or for a decline, and leaves the draft as it was", async () => {
    const customer = (await createCustomer(ctx.deps, orgId)).id;
    const id = await draftFor(customer);
    const missing = await finalize(id);
    expect(missing.statusCode, missing.body).toBe(402);
    expect(missing.json()).toEqual({ error: "PaymentFailed", detail: "Payment failed with reason: missing_payment_method." });
    await giveCard(customer, "tok_chargeCustomerFail");
    const declined = await finalize(id);
    expect(declined.statusCode, declined.body).toBe(402);
    expect(declined.json().error).toBe("PaymentFailed");
    expect(await stored(id)).toMatchObject({ status: "draft", invoice_number: null, receipt_number: null });
    expect(await eventTypes(id)).toEqual(["order.created"]);
    // A working card named explicitly then pays it.
    const card = await giveCard(customer);
    const paid = await finalize(id, { payment_method_id: card });
    expect(paid.statusCode, paid.body).toBe(200);
    expect(await paymentsOf(id)).toHaveLength(1);
  });

  it("answers 403 OrganizationNotReadyForPayments while the organization's review stops its payments, charging nothing", async () => {
    const customer = (await createCustomer(ctx.deps, orgId)).id;
    await giveCard(customer);
    const id = await draftFor(customer);
    const setStatus = (status: "active" | "review" | "denied" | "blocked") =>
      ctx.deps.db.updateTable("organizations").set({ status }).where("id", "=", orgId).execute();
    try {
      for (const status of ["denied", "blocked"] as const) {
        await setStatus(status);
        const refused = await finalize(id);
        expect(refused.statusCode, refused.body).toBe(403);
        expectReferenceResponse("orders:finalize", 403, refused.json());
        expect(refused.json()).toEqual({
          error: "OrganizationNotReadyForPayments",
          detail: `This organization (${orgId}) is not ready to accept payments.`,
        });
        expect(await stored(id)).toMatchObject({ status: "draft", invoice_number: null });
        expect(await paymentsOf(id)).toEqual([]);
        expect(await eventTypes(id)).toEqual(["order.created"]);
      }
      // Under review, an organization still takes payments.
      await setStatus("review");
      const paid = await finalize(id);
      expect(paid.statusCode, paid.body).toBe(200);
      expect(await paymentsOf(id)).toHaveLength(1);
    } finally {
      await setStatus("active");
    }
  });

  it("marks a free order paid without a charge", async () => {
    const customer = (await createCustomer(ctx.deps, orgId)).id;
    await giveCard(customer);
    const id = await draftFor(customer, { amount: 0 });
    const response = await finalize(id);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toMatchObject({ status: "paid", total_amount: 0, receipt_number: null, invoice_number: expect.any(String) });
    expect(await paymentsOf(id)).toEqual([]);
  });

  describe("bad input", () => {
    let id: string;
    beforeAll(async () => {
      id = await draftFor(customerId);
    });
    const post =
      (path: string, payload: object | undefined, token: string | null = writeToken) =>
      () => ({
        method: "POST" as const,
        url: `/v1/orders/${path}/finalize`,
        token,
        ...(payload ? { payload } : {}),
      });
    badInputTable(
      () => ctx.request,
      [
        { name: "a non-UUID id", request: () => post("nope", {})(), status: 422, loc: ["path", "id"] },
        {
          name: "a non-UUID payment_method_id",
          request: () => post(id, { payment_method_id: "nope" })(),
          status: 422,
          loc: ["body", "payment_method_id"],
        },
        {
          name: "another customer's payment method",
          request: () => post(id, { payment_method_id: UNKNOWN_ID })(),
          status: 422,
          loc: ["body", "payment_method_id"],
        },
        { name: "an unknown order", request: () => post(UNKNOWN_ID, {})(), status: 404, error: "ResourceNotFound" },
        { name: "another organization's order", request: () => post(id, {}, otherToken)(), status: 404, error: "ResourceNotFound" },
        { name: "a missing token", request: () => post(id, {}, null)(), status: 401 },
        { name: "a read-only token", request: () => post(id, {}, readToken)(), status: 403 },
      ],
      async () => expect(await stored(id)).toMatchObject({ status: "draft", invoice_number: null }),
    );
  });
});
