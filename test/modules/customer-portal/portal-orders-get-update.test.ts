import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { OrderRow } from "../../../src/modules/orders/orders.table.ts";
import { badInputTable } from "../../helpers/bad-inputs.ts";
import { createTestContext, type TestContext } from "../../helpers/context.ts";
import {
  createCustomer,
  createCustomerSessionToken,
  createOrder,
  createOrganization,
  createOrganizationToken,
  createProduct,
} from "../../helpers/factories.ts";
import { expectReferenceResponse } from "../../helpers/reference.ts";

let ctx: TestContext;
let orgId: string;
let session: string;
let orgToken: string;
let order: OrderRow;
let neighbour: OrderRow;
let stranger: OrderRow;
let strangerSession: string;

const PARIS = { line1: "1 Main St", line2: null, postal_code: "75001", city: "Paris", state: null, country: "FR" };
const url = (id: string) => `/v1/customer-portal/orders/${id}`;

beforeAll(async () => {
  ctx = await createTestContext();
  orgId = (await createOrganization(ctx.deps, "Portal Seller")).id;
  const customer = await createCustomer(ctx.deps, orgId);
  session = await createCustomerSessionToken(ctx.deps, customer.id);
  orgToken = await createOrganizationToken(ctx.deps, orgId, ["orders:read", "orders:write"]);
  const { product } = await createProduct(ctx.deps, orgId, {
    product: { name: "Portal Product" },
    benefits: [{ type: "license_keys", description: "License key", properties: { prefix: "KEY" } }],
    medias: 1,
  });
  order = await createOrder(ctx.deps, orgId, { customer, product, amounts: { subtotal: 4000, discount: 1000, tax: 600 } });
  neighbour = await createOrder(ctx.deps, orgId, { product });
  const otherOrg = (await createOrganization(ctx.deps)).id;
  const otherCustomer = await createCustomer(ctx.deps, otherOrg);
  stranger = await createOrder(ctx.deps, otherOrg, { customer: otherCustomer });
  strangerSession = await createCustomerSessionToken(ctx.deps, otherCustomer.id);
});
afterAll(() => ctx.close());
beforeEach(async () => {
  await ctx.deps.db
    .updateTable("orders")
    .set({ billing_name: "Ada Buyer", billing_address: JSON.stringify(PARIS), invoice_requested_at: null, modified_at: null })
    .where("id", "in", [order.id, neighbour.id, stranger.id])
    .execute();
});

const stored = (id: string) => ctx.deps.db.selectFrom("orders").selectAll().where("id", "=", id).executeTakeFirstOrThrow();
const updatedEvents = async () =>
  ctx.deps.db.selectFrom("webhook_events").select("payload").where("type", "=", "order.updated").orderBy("position").execute();
const patch = (id: string, payload: Record<string, unknown>, token = session) =>
  ctx.request({ method: "PATCH", url: url(id), payload, token });

describe("GET /v1/customer-portal/orders/{id}", () => {
  it("answers the customer's order with its product, benefits, medias and seller", async () => {
    const response = await ctx.request({ method: "GET", url: url(order.id), token: session });
    expect(response.statusCode, response.body).toBe(200);
    const body = response.json();
    expectReferenceResponse("customer_portal:orders:get", 200, body);
    expect(body).toMatchObject({
      id: order.id,
      status: "paid",
      paid: true,
      subtotal_amount: 4000,
      discount_amount: 1000,
      net_amount: 3000,
      tax_amount: 600,
      total_amount: 3600,
      due_amount: 0,
      refundable_amount: 3000,
      refundable_tax_amount: 600,
      currency: "usd",
      billing_name: "Ada Buyer",
      billing_address: PARIS,
      invoice_number: order.invoice_number,
      receipt_number: order.receipt_number,
      is_invoice_generated: false,
      customer_id: order.customer_id,
      product_id: order.product_id,
      subscription: null,
      product: {
        id: order.product_id,
        name: "Portal Product",
        prices: [{ amount_type: "fixed", price_amount: 2500 }],
        benefits: [{ type: "license_keys", description: "License key", organization_id: orgId }],
        medias: [{ name: "cover-0.png", service: "product_media" }],
        organization: {
          id: orgId,
          name: "Portal Seller",
          proration_behavior: "prorate",
          allow_customer_updates: true,
          customer_portal_settings: { usage: { show: true }, subscription: { update_seats: true, update_plan: true } },
          organization_features: { member_model_enabled: false, checkout_localization_enabled: false },
        },
      },
    });
    expect(body.items).toEqual([
      expect.objectContaining({ label: "Portal Product", amount: 4000, tax_amount: 600, proration: false, product_price_id: null }),
    ]);
    // Public benefits carry no properties; the customer view carries no customer or metadata.
    expect(body.product.benefits[0]).not.toHaveProperty("properties");
    for (const key of ["customer", "discount", "metadata", "custom_field_data", "platform_fee_amount"])
      expect(body).not.toHaveProperty(key);
  });

  it("answers 404 for another customer's order, another organization's and an unknown one", async () => {
    for (const id of [neighbour.id, stranger.id, randomUUID()]) {
      const response = await ctx.request({ method: "GET", url: url(id), token: session });
      expect(response.statusCode).toBe(404);
      expect(response.json()).toEqual({ error: "ResourceNotFound", detail: "Not found" });
    }
    expect((await ctx.request({ method: "GET", url: url(order.id), token: strangerSession })).statusCode).toBe(404);
  });

  badInputTable(
    () => ctx.request,
    [
      { name: "a non-UUID id", request: () => ({ method: "GET", url: url("ord_1"), token: session }), status: 422, loc: ["path", "id"] },
      { name: "no token", request: () => ({ method: "GET", url: url(order.id) }), status: 401, error: "Unauthorized" },
      {
        name: "an organization token",
        request: () => ({ method: "GET", url: url(order.id), token: orgToken }),
        status: 401,
        error: "Unauthorized",
      },
      {
        name: "an unknown session token",
        request: () => ({ method: "GET", url: url(order.id), token: "polar_cst_nothing00000000000000000000000000000" }),
        status: 401,
        error: "invalid_token",
      },
    ],
  );
});

describe("PATCH /v1/customer-portal/orders/{id}", () => {
  it("updates the billing name and address and records order.updated with the organization's view", async () => {
    const before = (await updatedEvents()).length;
    const address = { country: "FR", line1: "2 rue de Rivoli", city: "Paris", postal_code: "75004" };
    const response = await patch(order.id, { billing_name: "Ada Ltd", billing_address: address });
    expect(response.statusCode, response.body).toBe(200);
    const body = response.json();
    expectReferenceResponse("customer_portal:orders:update", 200, body);
    expect(body).toMatchObject({
      id: order.id,
      billing_name: "Ada Ltd",
      billing_address: { ...address, line2: null, state: null },
      modified_at: ctx.clock.now().toISOString(),
    });
    expect(body.product.organization.id).toBe(orgId);
    expect(await stored(order.id)).toMatchObject({
      billing_name: "Ada Ltd",
      billing_address: { line1: "2 rue de Rivoli", postal_code: "75004" },
    });
    const events = await updatedEvents();
    expect(events).toHaveLength(before + 1);
    const data = events.at(-1)!.payload.data as Record<string, unknown>;
    expect(data).toMatchObject({ id: order.id, billing_name: "Ada Ltd", customer: { id: order.customer_id } });
    expectReferenceResponse("orders:get", 200, data);
  });

  it("writes only the fields sent, null included", async () => {
    const response = await patch(order.id, { billing_name: null });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toMatchObject({ billing_name: null, billing_address: PARIS });
  });

  it("refuses a country and a state change together, writing nothing", async () => {
    const before = (await updatedEvents()).length;
    const response = await patch(order.id, { billing_address: { country: "US", state: "NY" } });
    expect(response.statusCode).toBe(422);
    expect(response.json().detail.map((issue: { loc: unknown }) => issue.loc)).toEqual([
      ["body", "billing_address", "country"],
      ["body", "billing_address", "state"],
    ]);
    expect((await stored(order.id)).billing_address).toEqual(PARIS);
    expect(await updatedEvents()).toHaveLength(before);
  });

  it("refuses with 409 once the invoice is requested, writing nothing", async () => {
    await ctx.deps.db.updateTable("orders").set({ invoice_requested_at: ctx.clock.now() }).where("id", "=", order.id).execute();
    const before = (await updatedEvents()).length;
    const response = await patch(order.id, { billing_name: "Too late" });
    expect(response.statusCode).toBe(409);
    expect(response.json().error).toBe("OrderInvoiceAlreadyRequested");
    expect((await stored(order.id)).billing_name).toBe("Ada Buyer");
    expect(await updatedEvents()).toHaveLength(before);
  });

  it("serializes concurrent edits: each is applied once and each records its own order.updated", async () => {
    const before = (await updatedEvents()).length;
    const names = Array.from({ length: 6 }, (_, index) => `Buyer ${index}`);
    const responses = await Promise.all(names.map((billing_name) => patch(order.id, { billing_name })));
    expect(responses.map((response) => response.statusCode)).toEqual(names.map(() => 200));
    const events = (await updatedEvents()).slice(before).map((event) => (event.payload.data as { billing_name: string }).billing_name);
    expect(new Set(events)).toEqual(new Set(names));
    // The row lock orders the edits: the stored name is the last one recorded.
    expect((await stored(order.id)).billing_name).toBe(events.at(-1));
  });

  it("answers 404 for another customer's or organization's order and leaves it untouched", async () => {
    for (const [id, token] of [
      [neighbour.id, session],
      [stranger.id, session],
      [order.id, strangerSession],
    ] as const) {
      const response = await patch(id, { billing_name: "Intruder" }, token);
      expect(response.statusCode).toBe(404);
      expect((await stored(id)).billing_name).toBe("Ada Buyer");
    }
  });

  let eventsBefore = 0;
  beforeEach(async () => {
    eventsBefore = (await updatedEvents()).length;
  });
  badInputTable(
    () => ctx.request,
    [
      {
        name: "a non-UUID id",
        request: () => ({ method: "PATCH", url: url("42"), token: session, payload: {} }),
        status: 422,
        loc: ["path", "id"],
      },
      {
        name: "a numeric billing name",
        request: () => ({ method: "PATCH", url: url(order.id), token: session, payload: { billing_name: 7 } }),
        status: 422,
        loc: ["body", "billing_name"],
      },
      {
        name: "an overlong billing name",
        request: () => ({ method: "PATCH", url: url(order.id), token: session, payload: { billing_name: "n".repeat(1000) } }),
        status: 422,
        loc: ["body", "billing_name"],
      },
      {
        name: "an address that is not an object",
        request: () => ({ method: "PATCH", url: url(order.id), token: session, payload: { billing_address: "Paris" } }),
        status: 422,
        loc: ["body", "billing_address"],
      },
      {
        name: "an unknown country",
        request: () => ({ method: "PATCH", url: url(order.id), token: session, payload: { billing_address: { country: "XX" } } }),
        status: 422,
        loc: ["body", "billing_address", "country"],
      },
      {
        name: "an overlong address line",
        request: () => ({
          method: "PATCH",
          url: url(order.id),
          token: session,
          payload: { billing_address: { ...PARIS, line1: "l".repeat(5000) } },
        }),
        status: 422,
      },
      {
        name: "no token",
        request: () => ({ method: "PATCH", url: url(order.id), payload: { billing_name: "X" } }),
        status: 401,
        error: "Unauthorized",
      },
      {
        name: "an organization token",
        request: () => ({ method: "PATCH", url: url(order.id), token: orgToken, payload: { billing_name: "X" } }),
        status: 401,
        error: "Unauthorized",
      },
      {
        name: "an unknown session token",
        request: () => ({
          method: "PATCH",
          url: url(order.id),
          token: "polar_cst_nothing00000000000000000000000000000",
          payload: { billing_name: "X" },
        }),
        status: 401,
        error: "invalid_token",
      },
    ],
    async () => {
      expect(await stored(order.id)).toMatchObject({ billing_name: "Ada Buyer", billing_address: PARIS, modified_at: null });
      expect(await updatedEvents()).toHaveLength(eventsBefore);
    },
  );
});
