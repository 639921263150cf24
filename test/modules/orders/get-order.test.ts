import { sql } from "kysely";
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
      // The subscription as it is now: its own fields and metadata, no customer or product.
      subscription: {
        id: w.subscriptionIds[0],
        status: "active",
        customer_id: w.customers.bob.id,
        product_id: w.products.plan.id,
        metadata: {},
      },
    });
    expect(body.items).toEqual(
      items.map((item) => expect.objectContaining({ id: item.id, label: item.label, amount: item.amount, tax_amount: item.tax_amount })),
    );
    expect(body.created_at).toBe(row.created_at.toISOString());
  });

  it("embeds null product and discount for an order without them, and keeps a deleted customer", async () => {
    const pendingResponse = await get(w.orders[3]!.id);
    expect(pendingResponse.statusCode, pendingResponse.body).toBe(200);
    const pending = pendingResponse.json();
    expectReferenceResponse("orders:get", 200, pending);
    expect(pending).toMatchObject({
      product_id: null,
      product: null,
      discount_id: null,
      discount: null,
      status: "pending",
      paid: false,
      checkout_id: w.checkoutIds[1],
    });
    const refundedResponse = await get(w.orders[2]!.id);
    expect(refundedResponse.statusCode, refundedResponse.body).toBe(200);
    const refunded = refundedResponse.json();
    expectReferenceResponse("orders:get", 200, refunded);
    expect(refunded.customer).toMatchObject({ id: w.customers.carol.id, email: "carol@orders.example" });
    expect(refunded.customer.deleted_at).not.toBeNull();
  });

  it("lets the owner read any organization's order", async () => {
    const response = await get(w.foreign.id, ctx.ownerToken);
    expect(response.statusCode).toBe(200);
    expect(response.json().id).toBe(w.foreign.id);
  });

  it("embeds the customer and discount exactly as their own routes show them, through the list too", async () => {
    // Values the JSON aggregation carries differently from a plain read: a tax id pair, a first
    // usage event, timestamps with microseconds.
    await ctx.deps.db
      .updateTable("customers")
      .set({ tax_id: JSON.stringify(["FR40303265045", "eu_vat"]) as never })
      .where("id", "=", w.customers.bob.id)
      .execute();
    await ctx.deps.db
      .updateTable("discounts")
      .set({ starts_at: sql<Date>`now() - interval '1 day'`, ends_at: sql<Date>`now() + interval '1 day'` })
      .where("id", "=", w.discounts.zeta.id)
      .execute();
    const eventsToken = await createOrganizationToken(ctx.deps, w.orgId, ["events:write"]);
    const ingest = await ctx.request({
      method: "POST",
      url: "/v1/events/ingest",
      token: eventsToken,
      payload: { events: [{ name: "api_call", customer_id: w.customers.bob.id }] },
    });
    expect(ingest.statusCode, ingest.body).toBe(200);
    const readToken = await createOrganizationToken(ctx.deps, w.orgId, ["customers:read", "discounts:read"]);
    const customer = (await ctx.request({ method: "GET", url: `/v1/customers/${w.customers.bob.id}`, token: readToken })).json();
    const { products: _products, ...discount } = (
      await ctx.request({ method: "GET", url: `/v1/discounts/${w.discounts.zeta.id}`, token: readToken })
    ).json();
    expect(customer.tax_id).toEqual(["FR40303265045", "eu_vat"]);
    expect(customer.first_user_event_at).not.toBeNull();
    expect(discount.starts_at).not.toBeNull();

    const row = w.orders[1]!;
    const single = (await get(row.id)).json();
    const listed = (
      await ctx.request({ method: "GET", url: `/v1/orders/?customer_id=${w.customers.bob.id}&limit=100`, token: w.readToken })
    )
      .json()
      .items.find((item: { id: string }) => item.id === row.id);
    for (const order of [single, listed]) {
      expect(order.customer).toEqual(customer);
      expect(order.discount).toEqual(discount);
    }
  });

  describe("refusals", () => {
    let sessionToken: string;
    let writeOnly: string;
    beforeAll(async () => {
      sessionToken = await createCustomerSessionToken(ctx.deps, w.customers.alice.id);
      writeOnly = await createOrganizationToken(ctx.deps, w.orgId, ["products:read"]);
    });
    const request = (id: () => string, token?: () => string | null) => () => ({
      method: "GET" as const,
      url: `/v1/orders/${id()}`,
      token: token ? token() : w.readToken,
    });
    const own = () => w.orders[0]!.id;

    badInputTable(
      () => ctx.request,
      [
        { name: "an unknown id", request: request(() => "3f9c4a2e-8b1d-4c6f-9a7e-2d5b8c1f0e3a"), status: 404, error: "ResourceNotFound" },
        { name: "another organization's order", request: request(() => w.foreign.id), status: 404, error: "ResourceNotFound" },
        {
          name: "an order seen with the other organization's token",
          request: request(own, () => w.otherToken),
          status: 404,
          error: "ResourceNotFound",
        },
        { name: "a non-UUID id", request: request(() => "order-1"), status: 422, loc: ["path", "id"] },
        {
          name: "a UUID of another version",
          request: request(() => "3f9c4a2e-8b1d-1c6f-9a7e-2d5b8c1f0e3a"),
          status: 422,
          loc: ["path", "id"],
        },
        { name: "no token", request: request(own, () => null), status: 401, error: "Unauthorized" },
        { name: "a malformed token", request: request(own, () => "polar_oat_nope"), status: 401, error: "invalid_token" },
        { name: "a customer session", request: request(own, () => sessionToken), status: 401, error: "Unauthorized" },
        { name: "a token without orders:read", request: request(own, () => writeOnly), status: 403, error: "insufficient_scope" },
      ],
    );
  });
});
