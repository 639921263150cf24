import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { OrderRow } from "../../../src/modules/orders/orders.table.ts";
import type { ProductRow } from "../../../src/modules/products/products.table.ts";
import { badInputTable } from "../../helpers/bad-inputs.ts";
import { createTestContext, type TestContext } from "../../helpers/context.ts";
import {
  createCustomer,
  createCustomerSessionToken,
  createOrder,
  createOrganization,
  createOrganizationToken,
  createProduct,
  createSubscription,
} from "../../helpers/factories.ts";
import { expectReferenceResponse } from "../../helpers/reference.ts";

let ctx: TestContext;
let orgId: string;
let session: string;
let orgToken: string;
let outsider: string;
let oneTime: ProductRow;
let recurring: ProductRow;
let subscriptionId: string;
/** The session customer's orders, oldest first. */
const mine: OrderRow[] = [];
const foreign: string[] = [];

const URL = "/v1/customer-portal/orders/";

/** One order per clock tick, so `created_at` orders them as created. */
async function order(options: Parameters<typeof createOrder>[2]): Promise<OrderRow> {
  ctx.clock.advance(1000);
  return createOrder(ctx.deps, orgId, options);
}

beforeAll(async () => {
  ctx = await createTestContext();
  const organization = await createOrganization(ctx.deps, "Zephyr Tools");
  orgId = organization.id;
  const customer = await createCustomer(ctx.deps, orgId);
  session = await createCustomerSessionToken(ctx.deps, customer.id);
  orgToken = await createOrganizationToken(ctx.deps, orgId, ["orders:read", "orders:write"]);
  oneTime = (await createProduct(ctx.deps, orgId, { product: { name: "Alpha Widget" } })).product;
  const plan = await createProduct(ctx.deps, orgId, {
    product: { name: "Beta Plan", recurring_interval: "month", recurring_interval_count: 1 },
  });
  recurring = plan.product;
  subscriptionId = (await createSubscription(ctx.deps, orgId, { customer, product: plan })).id;
  mine.push(await order({ customer, product: oneTime, amounts: { subtotal: 3000 } }));
  mine.push(
    await order({
      customer,
      product: recurring,
      amounts: { subtotal: 1000 },
      subscriptionId,
    }),
  );
  mine.push(await order({ customer, product: oneTime, amounts: { subtotal: 2000 } }));
  mine.push(await order({ customer, product: null, amounts: { subtotal: 500 } }));
  // Another customer of the same organization, and a customer of another organization.
  foreign.push((await order({ product: oneTime })).id);
  const otherOrg = (await createOrganization(ctx.deps)).id;
  const stranger = await createCustomer(ctx.deps, otherOrg);
  foreign.push((await createOrder(ctx.deps, otherOrg, { customer: stranger })).id);
  outsider = await createCustomerSessionToken(ctx.deps, stranger.id);
});
afterAll(() => ctx.close());

const list = async (query: Record<string, string | string[]> = {}, token = session) => {
  const response = await ctx.request({ method: "GET", url: URL, query, token });
  expect(response.statusCode, response.body).toBe(200);
  const body = response.json();
  expectReferenceResponse("customer_portal:orders:list", 200, body);
  return body as {
    items: { id: string; net_amount: number; product: { name: string } | null }[];
    pagination: { total_count: number; max_page: number };
  };
};
const ids = (body: { items: { id: string }[] }) => body.items.map((item) => item.id);
const byIndex = (...indexes: number[]) => indexes.map((index) => mine[index]!.id);

describe("GET /v1/customer-portal/orders/", () => {
  it("lists only the session customer's orders, newest first", async () => {
    const body = await list();
    expect(ids(body)).toEqual(byIndex(3, 2, 1, 0));
    expect(body.pagination).toEqual({ total_count: 4, max_page: 1 });
    for (const id of foreign) expect(ids(body)).not.toContain(id);
  });

  it("shows a customer of another organization none of these orders", async () => {
    const body = await list({}, outsider);
    expect(body.items).toHaveLength(1);
    expect(ids(body)).toEqual([foreign[1]]);
  });

  it("filters by one or several products", async () => {
    expect(ids(await list({ product_id: oneTime.id }))).toEqual(byIndex(2, 0));
    expect(ids(await list({ product_id: [oneTime.id, recurring.id] }))).toEqual(byIndex(2, 1, 0));
    expect((await list({ product_id: randomUUID() })).items).toEqual([]);
  });

  it("filters by billing type, one or both", async () => {
    expect(ids(await list({ product_billing_type: "recurring" }))).toEqual(byIndex(1));
    expect(ids(await list({ product_billing_type: "one_time" }))).toEqual(byIndex(2, 0));
    // Both types match every order that has a product.
    expect(ids(await list({ product_billing_type: ["one_time", "recurring"] }))).toEqual(byIndex(2, 1, 0));
  });

  it("filters by subscription", async () => {
    expect(ids(await list({ subscription_id: subscriptionId }))).toEqual(byIndex(1));
    expect(ids(await list({ subscription_id: [subscriptionId, randomUUID()] }))).toEqual(byIndex(1));
  });

  it("searches product and organization names, case-insensitively", async () => {
    expect(ids(await list({ query: "alpha" }))).toEqual(byIndex(2, 0));
    expect(ids(await list({ query: "BETA" }))).toEqual(byIndex(1));
    // The organization's name matches every order, including the one without a product.
    expect(ids(await list({ query: "zephyr" }))).toEqual(byIndex(3, 2, 1, 0));
    expect((await list({ query: "100%_" })).items).toEqual([]);
  });

  it("sorts by each key, ascending and descending, several keys in order", async () => {
    expect(ids(await list({ sorting: "created_at" }))).toEqual(byIndex(0, 1, 2, 3));
    expect(ids(await list({ sorting: "amount" }))).toEqual(byIndex(3, 1, 2, 0));
    expect(ids(await list({ sorting: "-net_amount" }))).toEqual(byIndex(0, 2, 1, 3));
    // Orders without a product sort last ascending (nulls last), first descending.
    const byProduct = ids(await list({ sorting: "product" }));
    expect(new Set(byProduct.slice(0, 2))).toEqual(new Set(byIndex(0, 2)));
    expect(byProduct.slice(2)).toEqual(byIndex(1, 3));
    expect(ids(await list({ sorting: ["product", "created_at"] }))).toEqual(byIndex(0, 2, 1, 3));
    expect(ids(await list({ sorting: ["-product", "-created_at"] }))).toEqual(byIndex(3, 1, 2, 0));
    expect(ids(await list({ sorting: ["subscription", "-created_at"] }))).toEqual(byIndex(1, 3, 2, 0));
    expect(ids(await list({ sorting: ["-subscription", "created_at"] }))).toEqual(byIndex(0, 2, 3, 1));
  });

  it("pages without repeating or skipping, and caps oversized pages", async () => {
    const first = await list({ limit: "3", page: "1", sorting: "amount" });
    const second = await list({ limit: "3", page: "2", sorting: "amount" });
    expect(first.pagination).toEqual({ total_count: 4, max_page: 2 });
    expect([...ids(first), ...ids(second)]).toEqual(byIndex(3, 1, 2, 0));
    expect((await list({ page: "3", limit: "3" })).items).toEqual([]);
  });

  it("caps the page size at 100: a customer's 101 orders asked for 1,000 a page take two pages", async () => {
    const customer = await createCustomer(ctx.deps, orgId);
    const token = await createCustomerSessionToken(ctx.deps, customer.id);
    for (let i = 0; i < 101; i += 20) {
      await Promise.all(Array.from({ length: Math.min(20, 101 - i) }, () => createOrder(ctx.deps, orgId, { customer, product: oneTime })));
    }
    const first = await list({ limit: "1000" }, token);
    expect(first.items).toHaveLength(100);
    expect(first.pagination).toEqual({ total_count: 101, max_page: 2 });
    const second = await list({ limit: "1000", page: "2" }, token);
    expect(second.items).toHaveLength(1);
    expect(new Set([...ids(first), ...ids(second)]).size).toBe(101);
  });

  it("embeds each product with its seller, and no customer, discount or metadata", async () => {
    const body = await list({ sorting: "created_at" });
    const [first] = body.items as unknown as Record<string, unknown>[];
    expect(first).not.toHaveProperty("customer");
    expect(first).not.toHaveProperty("discount");
    expect(first).not.toHaveProperty("metadata");
    expect(first).not.toHaveProperty("platform_fee_amount");
    expect(first!.product).toMatchObject({ id: oneTime.id, name: "Alpha Widget", organization: { id: orgId, name: "Zephyr Tools" } });
    expect(body.items[3]!.product).toBeNull();
  });

  badInputTable(
    () => ctx.request,
    [
      {
        name: "a non-UUID product",
        request: () => ({ method: "GET", url: URL, token: session, query: { product_id: "p1" } }),
        status: 422,
        loc: ["query", "product_id"],
      },
      {
        name: "a non-UUID subscription",
        request: () => ({ method: "GET", url: URL, token: session, query: { subscription_id: "sub" } }),
        status: 422,
        loc: ["query", "subscription_id"],
      },
      {
        name: "an unknown billing type",
        request: () => ({ method: "GET", url: URL, token: session, query: { product_billing_type: "weekly" } }),
        status: 422,
        loc: ["query", "product_billing_type"],
      },
      {
        name: "an organization-side sort key",
        request: () => ({ method: "GET", url: URL, token: session, query: { sorting: "customer" } }),
        status: 422,
        loc: ["query", "sorting", 0],
      },
      {
        name: "an unknown sort key",
        request: () => ({ method: "GET", url: URL, token: session, query: { sorting: "-price" } }),
        status: 422,
        loc: ["query", "sorting", 0],
      },
      {
        name: "a zero page",
        request: () => ({ method: "GET", url: URL, token: session, query: { page: "0" } }),
        status: 422,
        loc: ["query", "page"],
      },
      {
        name: "a negative limit",
        request: () => ({ method: "GET", url: URL, token: session, query: { limit: "-1" } }),
        status: 422,
        loc: ["query", "limit"],
      },
      {
        name: "a text limit",
        request: () => ({ method: "GET", url: URL, token: session, query: { limit: "ten" } }),
        status: 422,
        loc: ["query", "limit"],
      },
      {
        name: "an overlong search",
        request: () => ({ method: "GET", url: URL, token: session, query: { query: "q".repeat(1000) } }),
        status: 422,
        loc: ["query", "query"],
      },
      { name: "no token", request: () => ({ method: "GET", url: URL }), status: 401, error: "Unauthorized" },
      { name: "an organization token", request: () => ({ method: "GET", url: URL, token: orgToken }), status: 401, error: "Unauthorized" },
      {
        name: "an unknown session token",
        request: () => ({ method: "GET", url: URL, token: "polar_cst_nothing00000000000000000000000000000" }),
        status: 401,
        error: "invalid_token",
      },
    ],
  );
});
