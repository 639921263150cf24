import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { badInputTable } from "../../helpers/bad-inputs.ts";
import { createTestContext, type TestContext } from "../../helpers/context.ts";
import { createCustomerSessionToken, createOrganizationToken } from "../../helpers/factories.ts";
import { expectReferenceResponse } from "../../helpers/reference.ts";
import { qs } from "../../helpers/query-string.ts";
import { at, createOrderWorld, type OrderWorld } from "./order-fixtures.ts";

let ctx: TestContext;
let w: OrderWorld;

beforeAll(async () => {
  ctx = await createTestContext();
  w = await createOrderWorld(ctx);
});
afterAll(() => ctx.close());

const list = async (pairs: [string, string][], token = w.readToken) => {
  const response = await ctx.request({ method: "GET", url: `/v1/orders/${qs(pairs)}`, token });
  expect(response.statusCode, response.body).toBe(200);
  const body = response.json();
  expectReferenceResponse("orders:list", 200, body);
  return body as { items: { id: string }[]; pagination: { total_count: number; max_page: number } };
};
/** The ids a filter returns, sorted, with the total count checked against them. */
const found = async (pairs: [string, string][], token?: string) => {
  const body = await list([...pairs, ["limit", "100"]], token);
  expect(body.pagination.total_count).toBe(body.items.length);
  return body.items.map((item) => item.id).sort();
};
const orders = (...indexes: number[]) => indexes.map((i) => w.orders[i]!.id).sort();

describe("GET /v1/orders/ filters", () => {
  it("lists the organization's own orders, never another organization's", async () => {
    expect(await found([])).toEqual(orders(0, 1, 2, 3, 4, 5, 6));
    expect(await found([["organization_id", w.orgId]])).toEqual(orders(0, 1, 2, 3, 4, 5, 6));
    expect(await found([["organization_id", w.otherOrgId]])).toEqual([]);
    expect(await found([["organization_id", w.otherOrgId]], ctx.ownerToken)).toEqual([w.foreign.id]);
    const both = await found(
      [
        ["organization_id", w.orgId],
        ["organization_id", w.otherOrgId],
      ],
      ctx.ownerToken,
    );
    expect(both).toEqual([...orders(0, 1, 2, 3, 4, 5, 6), w.foreign.id].sort());
  });

  it("filters by each id filter, with one value and with several (OR'd)", async () => {
    const { alice, bob, carol } = w.customers;
    expect(await found([["product_id", w.products.book.id]])).toEqual(orders(0, 2, 5, 6));
    expect(
      await found([
        ["product_id", w.products.book.id],
        ["product_id", w.products.plan.id],
      ]),
    ).toEqual(orders(0, 1, 2, 4, 5, 6));
    expect(await found([["discount_id", w.discounts.zeta.id]])).toEqual(orders(1, 5));
    expect(
      await found([
        ["discount_id", w.discounts.zeta.id],
        ["discount_id", w.discounts.eta.id],
      ]),
    ).toEqual(orders(1, 2, 5));
    expect(await found([["customer_id", alice.id]])).toEqual(orders(0, 3, 5));
    expect(
      await found([
        ["customer_id", alice.id],
        ["customer_id", carol.id],
      ]),
    ).toEqual(orders(0, 2, 3, 5));
    expect(await found([["checkout_id", w.checkoutIds[0]]])).toEqual(orders(2));
    expect(
      await found([
        ["checkout_id", w.checkoutIds[0]],
        ["checkout_id", w.checkoutIds[1]],
      ]),
    ).toEqual(orders(2, 3));
    expect(await found([["subscription_id", w.subscriptionIds[0]]])).toEqual(orders(1, 5));
    expect(
      await found([
        ["subscription_id", w.subscriptionIds[0]],
        ["subscription_id", w.subscriptionIds[1]],
      ]),
    ).toEqual(orders(1, 4, 5));
    expect(
      await found([
        ["customer_id", bob.id],
        ["product_id", w.foreign.product_id!],
      ]),
    ).toEqual([]);
  });

  it("filters by external customer id, ignoring soft-deleted customers", async () => {
    expect(await found([["external_customer_id", "ext-alice"]])).toEqual(orders(0, 3, 5));
    expect(await found([["external_customer_id", "ext-carol"]])).toEqual([]);
    expect(
      await found([
        ["external_customer_id", "ext-bob"],
        ["external_customer_id", "ext-carol"],
      ]),
    ).toEqual(orders(1, 4, 6));
  });

  it("filters by product billing type, leaving out orders without a product", async () => {
    expect(await found([["product_billing_type", "one_time"]])).toEqual(orders(0, 2, 5, 6));
    expect(await found([["product_billing_type", "recurring"]])).toEqual(orders(1, 4));
    expect(
      await found([
        ["product_billing_type", "one_time"],
        ["product_billing_type", "recurring"],
      ]),
    ).toEqual(orders(0, 1, 2, 4, 5, 6));
  });

  it("filters by status, one or several", async () => {
    expect(await found([["status", "paid"]])).toEqual(orders(0, 1));
    expect(
      await found([
        ["status", "paid"],
        ["status", "refunded"],
      ]),
    ).toEqual(orders(0, 1, 2));
    expect(
      await found([
        ["status", "draft"],
        ["status", "void"],
        ["status", "pending"],
        ["status", "partially_refunded"],
      ]),
    ).toEqual(orders(3, 4, 5, 6));
  });

  it("filters by creation date with strict bounds", async () => {
    // Order i was created at start + (i + 1) s: a bound equal to a creation time excludes that order.
    expect(await found([["created_after", at(w, 3)]])).toEqual(orders(3, 4, 5, 6));
    expect(await found([["created_before", at(w, 3)]])).toEqual(orders(0, 1));
    expect(
      await found([
        ["created_after", at(w, 2)],
        ["created_before", at(w, 5)],
      ]),
    ).toEqual(orders(2, 3));
    expect(await found([["created_after", at(w, 7)]])).toEqual([]);
  });

  it("filters by metadata: a key's values OR'd, different keys AND'd, compared as text", async () => {
    expect(await found([["metadata[tier]", "gold"]])).toEqual(orders(0, 2, 6));
    expect(
      await found([
        ["metadata[tier]", "gold"],
        ["metadata[tier]", "silver"],
      ]),
    ).toEqual(orders(0, 1, 2, 6));
    expect(
      await found([
        ["metadata[tier]", "gold"],
        ["metadata[vip]", "true"],
      ]),
    ).toEqual(orders(2));
    expect(await found([["metadata[seats]", "5"]])).toEqual(orders(0));
    expect(await found([["metadata[tier]", "platinum"]])).toEqual([]);
  });

  it("ANDs different filters", async () => {
    const bob = w.customers.bob.id;
    expect(
      await found([
        ["customer_id", bob],
        ["status", "paid"],
        ["status", "void"],
      ]),
    ).toEqual(orders(1, 6));
    expect(
      await found([
        ["product_billing_type", "one_time"],
        ["metadata[tier]", "gold"],
        ["created_before", at(w, 7)],
      ]),
    ).toEqual(orders(0, 2));
  });
});

describe("GET /v1/orders/ pagination", () => {
  it("counts pages from the limit, answers an empty page past the end, and max_page 0 when nothing matches", async () => {
    const first = await list([
      ["limit", "2"],
      ["sorting", "created_at"],
    ]);
    expect(first.pagination).toEqual({ total_count: 7, max_page: 4 });
    expect(first.items.map((o) => o.id)).toEqual([w.orders[0]!.id, w.orders[1]!.id]);
    const last = await list([
      ["limit", "2"],
      ["page", "4"],
      ["sorting", "created_at"],
    ]);
    expect(last.items.map((o) => o.id)).toEqual([w.orders[6]!.id]);
    const beyond = await list([
      ["limit", "2"],
      ["page", "5"],
    ]);
    expect(beyond).toEqual({ items: [], pagination: { total_count: 7, max_page: 4 } });
    expect(
      await list([
        ["status", "paid"],
        ["customer_id", w.customers.carol.id],
      ]),
    ).toEqual({ items: [], pagination: { total_count: 0, max_page: 0 } });
  });

  it("defaults to page 1 of 10, newest first", async () => {
    const body = await list([]);
    expect(body.pagination).toEqual({ total_count: 7, max_page: 1 });
    expect(body.items.map((o) => o.id)).toEqual([...w.orders].reverse().map((o) => o.id));
  });
});

describe("GET /v1/orders/ refusals", () => {
  let sessionToken: string;
  let productsToken: string;
  beforeAll(async () => {
    sessionToken = await createCustomerSessionToken(ctx.deps, w.customers.alice.id);
    productsToken = await createOrganizationToken(ctx.deps, w.orgId, ["products:read"]);
  });
  // Cases are declared before the world exists: the token is looked up when the case runs.
  const get = (query: string, token?: string | null) => () => ({
    method: "GET" as const,
    url: `/v1/orders/${query}`,
    token: token === undefined ? w.readToken : token,
  });

  badInputTable(
    () => ctx.request,
    [
      { name: "limit 0", request: get("?limit=0"), status: 422, loc: ["query", "limit"] },
      { name: "a negative limit", request: get("?limit=-5"), status: 422, loc: ["query", "limit"] },
      { name: "page 0", request: get("?page=0"), status: 422, loc: ["query", "page"] },
      { name: "a non-integer limit", request: get("?limit=ten"), status: 422, loc: ["query", "limit"] },
      { name: "an unknown sorting key", request: get("?sorting=-created_at&sorting=weight"), status: 422, loc: ["query", "sorting", 1] },
      { name: "a non-UUID product_id", request: get("?product_id=book"), status: 422, loc: ["query", "product_id"] },
      {
        name: "a non-UUID among several customer_id",
        request: () => get(`?customer_id=${w.customers.bob.id}&customer_id=x`)(),
        status: 422,
        loc: ["query", "customer_id", 1],
      },
      { name: "an unknown status", request: get("?status=shipped"), status: 422, loc: ["query", "status"] },
      {
        name: "an unknown billing type",
        request: get("?product_billing_type=monthly"),
        status: 422,
        loc: ["query", "product_billing_type"],
      },
      {
        name: "a created_after that is not a date-time",
        request: get("?created_after=yesterday"),
        status: 422,
        loc: ["query", "created_after"],
      },
      {
        name: "an overlong external_customer_id",
        request: get(`?external_customer_id=${"e".repeat(257)}`),
        status: 422,
        loc: ["query", "external_customer_id"],
      },
      { name: "no token", request: get("", null), status: 401, error: "Unauthorized" },
      { name: "an unknown token", request: get("", "polar_oat_unknown"), status: 401, error: "invalid_token" },
      { name: "a customer session", request: () => get("", sessionToken)(), status: 401, error: "Unauthorized" },
      { name: "a token without orders:read", request: () => get("", productsToken)(), status: 403, error: "insufficient_scope" },
    ],
  );
});
