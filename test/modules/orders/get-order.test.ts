import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { badInputTable } from "../../helpers/bad-inputs.ts";
import { createTestContext, type TestContext } from "../../helpers/context.ts";
import { createCustomerSessionToken, createOrganizationToken } from "../../helpers/factories.ts";
import { expectReferenceResponse } from "../../helpers/reference.ts";
import { createOrderWorld, type OrderWorld } from "./order-fixtures.ts";

let ctx: TestContext;
let w: OrderWorld;

beforeAll(async () => {
  ctx = await createTestContext();
  w = await createOrderWorld(ctx);
});
afterAll(() => ctx.close());

const get = (id: string, token: string | null = w.readToken) => ctx.request({ method: "GET", url: `/v1/orders/${id}`, token });

describe("GET /v1/orders/{id}", () => {
  it("answers the full order with its customer, product, discount and items embedded", async () => {
    const row = w.orders[1]!;
    const response = await get(row.id);
    expect(response.statusCode, response.body).toBe(200);
    const body = response.json();
    expectReferenceResponse("orders:get", 200, body);
    const items = await ctx.deps.db.selectFrom("order_items").selectAll().where("order_id", "=", row.id).execute();
    expect(items.length).toBeGreaterThan(0);
    expect(body).toMatchObject({
      id: row.id,
      status: "paid",
      paid: true,
      net_amount: 3000,
      currency: "usd",
      billing_reason: "subscription_create",
      billing_name: "Ada Buyer",
      billing_address: { country: "FR", city: "Paris" },
      invoice_number: row.invoice_number,
      is_invoice_generated: false,
      receipt_number: row.receipt_number,
      customer_id: w.customers.bob.id,
      product_id: w.products.plan.id,
      discount_id: w.discounts.zeta.id,
      subscription_id: w.subscriptionIds[0],
      checkout_id: null,
      metadata: { tier: "silver" },
      customer: { id: w.customers.bob.id, email: "bob@orders.example", external_id: "ext-bob", type: "individual" },
      product: { id: w.products.plan.id, name: "Annual plan", recurring_interval: "month", is_recurring: true },
      discount: { id: w.discounts.zeta.id, name: "Zeta", type: "percentage" },
      // Subscriptions are not modelled here: the id is kept, the embedded object is null.
      subscription: null,
    });
    expect(body.items).toEqual(items.map((item) => expect.objectContaining({ id: item.id, label: item.label, amount: item.amount, tax_amount: item.tax_amount })));
    expect(body.created_at).toBe(row.created_at.toISOString());
  });

  it("embeds null product and discount for an order without them, and keeps a deleted customer", async () => {
    const pending = (await get(w.orders[3]!.id)).json();
    expectReferenceResponse("orders:get", 200, pending);
    expect(pending).toMatchObject({ product_id: null, product: null, discount_id: null, discount: null, status: "pending", paid: false, checkout_id: w.checkoutIds[1] });
    const refunded = (await get(w.orders[2]!.id)).json();
    expectReferenceResponse("orders:get", 200, refunded);
    expect(refunded.customer).toMatchObject({ id: w.customers.carol.id, email: "carol@orders.example" });
    expect(refunded.customer.deleted_at).not.toBeNull();
  });

  it("lets the owner read any organization's order", async () => {
    const response = await get(w.foreign.id, ctx.ownerToken);
    expect(response.statusCode).toBe(200);
    expect(response.json().id).toBe(w.foreign.id);
  });

  describe("refusals", () => {
    let sessionToken: string;
    let writeOnly: string;
    beforeAll(async () => {
      sessionToken = await createCustomerSessionToken(ctx.deps, w.customers.alice.id);
      writeOnly = await createOrganizationToken(ctx.deps, w.orgId, ["products:read"]);
    });
    const request = (id: () => string, token?: () => string | null) => () => ({ method: "GET" as const, url: `/v1/orders/${id()}`, token: token ? token() : w.readToken });
    const own = () => w.orders[0]!.id;

    badInputTable(() => ctx.request, [
      { name: "an unknown id", request: request(() => "3f9c4a2e-8b1d-4c6f-9a7e-2d5b8c1f0e3a"), status: 404, error: "ResourceNotFound" },
      { name: "another organization's order", request: request(() => w.foreign.id), status: 404, error: "ResourceNotFound" },
      { name: "an order seen with the other organization's token", request: request(own, () => w.otherToken), status: 404, error: "ResourceNotFound" },
      { name: "a non-UUID id", request: request(() => "order-1"), status: 422, loc: ["path", "id"] },
      { name: "a UUID of another version", request: request(() => "3f9c4a2e-8b1d-1c6f-9a7e-2d5b8c1f0e3a"), status: 422, loc: ["path", "id"] },
      { name: "no token", request: request(own, () => null), status: 401, error: "Unauthorized" },
      { name: "a malformed token", request: request(own, () => "polar_oat_nope"), status: 401, error: "invalid_token" },
      { name: "a customer session", request: request(own, () => sessionToken), status: 401, error: "Unauthorized" },
      { name: "a token without orders:read", request: request(own, () => writeOnly), status: 403, error: "insufficient_scope" },
    ]);
  });
});
