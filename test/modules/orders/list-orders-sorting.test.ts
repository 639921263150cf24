import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestContext, type TestContext } from "../../helpers/context.ts";
import { createCustomer, createOrder, createOrganization, createOrganizationToken, createProduct } from "../../helpers/factories.ts";
import { expectReferenceResponse } from "../../helpers/reference.ts";
import type { OrderRow } from "../../../src/modules/orders/orders.table.ts";
import { qs } from "../../helpers/query-string.ts";
import { createOrderWorld, type OrderWorld } from "./order-fixtures.ts";

let ctx: TestContext;
let w: OrderWorld;
let bulk: { token: string; orders: OrderRow[] };

beforeAll(async () => {
  ctx = await createTestContext();
  w = await createOrderWorld(ctx);
  // 101 orders of one customer and product, three creation times and two statuses: nearly every
  // sort key ties, so only the id tiebreaker keeps pages from repeating or skipping orders.
  const orgId = (await createOrganization(ctx.deps)).id;
  const customer = await createCustomer(ctx.deps, orgId);
  const { product } = await createProduct(ctx.deps, orgId);
  const orders: OrderRow[] = [];
  for (let i = 0; i < 101; i += 1) {
    const created_at = new Date(w.start.getTime() + (i % 3) * 60_000);
    orders.push(
      await createOrder(ctx.deps, orgId, {
        customer,
        product,
        amounts: { subtotal: 100 * (i % 2) },
        values: { created_at, status: i % 2 ? "paid" : "refunded" },
      }),
    );
  }
  bulk = { token: await createOrganizationToken(ctx.deps, orgId, ["orders:read"]), orders };
});
afterAll(() => ctx.close());

const list = async (query: string, token = w.readToken) => {
  const response = await ctx.request({ method: "GET", url: `/v1/orders/${query}`, token });
  expect(response.statusCode, response.body).toBe(200);
  const body = response.json();
  expectReferenceResponse("orders:list", 200, body);
  return body as { items: { id: string }[]; pagination: { total_count: number; max_page: number } };
};

// The expected order, computed in JavaScript from the rows the test wrote (not from the API).
const RANK: Record<OrderRow["status"], number> = { draft: 1, pending: 2, paid: 3, partially_refunded: 4, refunded: 5, void: 6 };
type Value = string | number | null;
const emails = () => new Map(Object.values(w.customers).map((c) => [c.id, c.email]));
const productNames = () => new Map(Object.values(w.products).map((p) => [p.id, p.name]));
const discountNames = () => new Map(Object.values(w.discounts).map((d) => [d.id, d.name]));
const sortValue = (key: string, o: OrderRow): Value => {
  switch (key) {
    case "created_at":
      return o.created_at.getTime();
    case "status":
      return RANK[o.status];
    case "invoice_number":
      return o.invoice_number;
    case "amount":
    case "net_amount":
      return o.net_amount;
    case "customer":
      return emails().get(o.customer_id) ?? null;
    case "product":
      return o.product_id === null ? null : (productNames().get(o.product_id) ?? null);
    case "discount":
      return o.discount_id === null ? null : (discountNames().get(o.discount_id) ?? null);
    default:
      return o.subscription_id;
  }
};
// PostgreSQL's order: nulls after every value ascending, so before them descending.
const compare = (a: Value, b: Value) => (a === b ? 0 : a === null ? 1 : b === null ? -1 : a < b ? -1 : 1);
function expected(rows: readonly OrderRow[], sorting: string[]): string[] {
  const criteria = sorting.map((s) => ({ key: s.replace(/^-/, ""), sign: s.startsWith("-") ? -1 : 1 }));
  const last = criteria.at(-1)!.sign;
  return [...rows]
    .sort((a, b) => {
      for (const { key, sign } of criteria) {
        const order = compare(sortValue(key, a), sortValue(key, b));
        if (order !== 0) return sign * order;
      }
      return last * compare(a.id, b.id);
    })
    .map((o) => o.id);
}
const sortQuery = (sorting: string[], extra: [string, string][] = []) =>
  qs([...sorting.map((s): [string, string] => ["sorting", s]), ...extra]);

describe("GET /v1/orders/ sorting", () => {
  const KEYS = ["created_at", "status", "invoice_number", "amount", "net_amount", "customer", "product", "discount", "subscription"];
  for (const key of KEYS) {
    for (const sorting of [key, `-${key}`]) {
      it(`sorts by ${sorting}`, async () => {
        const body = await list(sortQuery([sorting], [["limit", "100"]]));
        expect(body.items.map((o) => o.id)).toEqual(expected(w.orders, [sorting]));
      });
    }
  }

  it("applies several keys in order", async () => {
    for (const sorting of [
      ["status", "-amount"],
      ["customer", "-created_at"],
      ["-product", "discount", "invoice_number"],
      ["amount", "customer"],
    ]) {
      const body = await list(sortQuery(sorting, [["limit", "100"]]));
      expect(
        body.items.map((o) => o.id),
        sorting.join(","),
      ).toEqual(expected(w.orders, sorting));
    }
  });

  it("ignores a key repeated later: its first direction wins", async () => {
    const body = await list(sortQuery(["-amount", "customer", "amount"], [["limit", "100"]]));
    expect(body.items.map((o) => o.id)).toEqual(expected(w.orders, ["-amount", "customer"]));
  });
});

describe("GET /v1/orders/ pages over ties", () => {
  const walk = async (sorting: string[]) => {
    const seen: string[] = [];
    for (let page = 1; ; page += 1) {
      const body = await list(
        sortQuery(sorting, [
          ["limit", "3"],
          ["page", String(page)],
        ]),
        bulk.token,
      );
      expect(body.pagination).toEqual({ total_count: 101, max_page: 34 });
      if (body.items.length === 0) return { seen, pages: page - 1 };
      seen.push(...body.items.map((o) => o.id));
    }
  };

  for (const sorting of [[], ["status"], ["customer", "-amount"], ["-product"], ["created_at", "status"]]) {
    it(`returns every order exactly once, page after page, sorted by ${sorting.join(",") || "default"}`, async () => {
      const { seen, pages } = await walk(sorting);
      expect(pages).toBe(34);
      expect(new Set(seen).size).toBe(101);
      expect(seen).toEqual(expected(bulk.orders, sorting.length ? sorting : ["-created_at"]));
    });
  }

  it("caps the page size at 100 and counts pages from the cap", async () => {
    const first = await list("?limit=1000", bulk.token);
    expect(first.items).toHaveLength(100);
    expect(first.pagination).toEqual({ total_count: 101, max_page: 2 });
    const second = await list("?limit=101&page=2", bulk.token);
    expect(second.items.map((o) => o.id)).toEqual(expected(bulk.orders, ["-created_at"]).slice(100));
  });
});
