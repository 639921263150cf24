import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { badInputTable } from "../../helpers/bad-inputs.ts";
import type { TestContext } from "../../helpers/context.ts";
import { createOrganization, createOrganizationToken, createProduct, openOrganizationContext } from "../../helpers/factories.ts";
import { qs } from "../../helpers/query-string.ts";
import { expectReferenceResponse } from "../../helpers/reference.ts";
import { buyThroughCheckout } from "../subscriptions/subscription-helpers.ts";
import { createRefund, paidOrder } from "./refund-helpers.ts";

let ctx: TestContext;
let org: { id: string };
let readToken: string;
let writeToken: string;
let ordersOnlyToken: string;
let otherOrgId: string;
/** The organization's refunds in creation order: [order1 300, order1 200, subscription order 1500, order3 800 (failed)]. */
let refunds: { id: string; order_id: string; customer_id: string; subscription_id: string | null; amount: number }[];
let foreignRefundId: string;

beforeAll(async () => {
  let checkoutToken: string;
  ({
    ctx,
    org,
    tokens: [checkoutToken, writeToken, readToken, ordersOnlyToken],
  } = await openOrganizationContext(["checkouts:write"], ["refunds:write"], ["refunds:read"], ["orders:read"]));
  const create = (orderId: string, amount: number, token = writeToken) => {
    ctx.clock.advance(1000);
    return createRefund<(typeof refunds)[number]>(ctx, token, orderId, amount);
  };
  const order1 = await paidOrder(ctx, org.id, checkoutToken, { price: 1000, email: "first@refunds.example" });
  await ctx.deps.db.updateTable("customers").set({ external_id: "ext-first" }).where("id", "=", order1.customer_id).execute();
  const plan = await createProduct(ctx.deps, org.id, {
    product: { name: "Listed plan", recurring_interval: "month", recurring_interval_count: 1 },
    prices: [{ amount_type: "fixed", price_amount: 1500 }],
  });
  const { checkout } = await buyThroughCheckout(ctx, checkoutToken, plan.product.id, { buyer: { customer_email: "plan@refunds.example" } });
  const order2 = await ctx.deps.db.selectFrom("orders").selectAll().where("checkout_id", "=", checkout.id).executeTakeFirstOrThrow();
  const order3 = await paidOrder(ctx, org.id, checkoutToken, { price: 800 });
  refunds = [await create(order1.id, 300), await create(order1.id, 200), await create(order2.id, 1500), await create(order3.id, 800)];
  // The processor later reported the last one failed (the row as a failed refund leaves it).
  await ctx.deps.db.updateTable("refunds").set({ status: "failed" }).where("id", "=", refunds[3]!.id).execute();

  otherOrgId = (await createOrganization(ctx.deps)).id;
  const otherCheckout = await createOrganizationToken(ctx.deps, otherOrgId, ["checkouts:write"]);
  const otherWrite = await createOrganizationToken(ctx.deps, otherOrgId, ["refunds:write"]);
  foreignRefundId = (await create((await paidOrder(ctx, otherOrgId, otherCheckout)).id, 100, otherWrite)).id;
});
afterAll(() => ctx.close());

const list = async (pairs: [string, string][], token = readToken) => {
  const response = await ctx.request({ method: "GET", url: `/v1/refunds/${qs(pairs)}`, token });
  expect(response.statusCode, response.body).toBe(200);
  expectReferenceResponse("refunds:list", 200, response.json());
  return response.json<{ items: { id: string }[]; pagination: { total_count: number; max_page: number } }>();
};
/** The ids in the answer's order. */
const ids = async (pairs: [string, string][], token?: string) => (await list(pairs, token)).items.map((item) => item.id);
const pick = (...indexes: number[]) => indexes.map((i) => refunds[i]!.id);

describe("GET /v1/refunds/", () => {
  it("lists the organization's refunds newest first, never another organization's", async () => {
    const body = await list([]);
    expect(body.items.map((item) => item.id)).toEqual(pick(3, 2, 1, 0));
    expect(body.pagination).toEqual({ total_count: 4, max_page: 1 });
    expect(await ids([], writeToken)).toEqual(pick(3, 2, 1, 0));
    expect(await ids([["organization_id", otherOrgId]])).toEqual([]);
    expect(await ids([["organization_id", otherOrgId]], ctx.ownerToken)).toEqual([foreignRefundId]);
    expect(await ids([["id", foreignRefundId]])).toEqual([]);
  });

  it("filters by id, order, subscription, customer, external customer and success", async () => {
    const [first, , onPlan] = refunds as [(typeof refunds)[0], (typeof refunds)[0], (typeof refunds)[0]];
    expect(await ids([["id", first.id]])).toEqual(pick(0));
    expect(
      await ids([
        ["id", first.id],
        ["id", onPlan.id],
      ]),
    ).toEqual(pick(2, 0));
    expect(await ids([["order_id", first.order_id]])).toEqual(pick(1, 0));
    expect(await ids([["subscription_id", onPlan.subscription_id!]])).toEqual(pick(2));
    expect(await ids([["customer_id", onPlan.customer_id]])).toEqual(pick(2));
    expect(await ids([["external_customer_id", "ext-first"]])).toEqual(pick(1, 0));
    expect(await ids([["external_customer_id", "ext-nobody"]])).toEqual([]);
    expect(await ids([["succeeded", "true"]])).toEqual(pick(2, 1, 0));
    expect(await ids([["succeeded", "false"]])).toEqual(pick(3));
    expect(
      await ids([
        ["order_id", first.order_id],
        ["succeeded", "false"],
      ]),
    ).toEqual([]);
  });

  it("sorts by amount and creation, both ways, and pages without repeats", async () => {
    expect(await ids([["sorting", "amount"]])).toEqual(pick(1, 0, 3, 2));
    expect(await ids([["sorting", "-amount"]])).toEqual(pick(2, 3, 0, 1));
    expect(await ids([["sorting", "created_at"]])).toEqual(pick(0, 1, 2, 3));
    const page1 = await list([
      ["sorting", "created_at"],
      ["limit", "3"],
    ]);
    const page2 = await list([
      ["sorting", "created_at"],
      ["limit", "3"],
      ["page", "2"],
    ]);
    expect(page1.pagination).toEqual({ total_count: 4, max_page: 2 });
    expect([...page1.items, ...page2.items].map((item) => item.id)).toEqual(pick(0, 1, 2, 3));
  });
});

describe("GET /v1/refunds/ refusals", () => {
  it("answers a bad filter in the reference's 422 shape", async () => {
    const response = await ctx.request({ method: "GET", url: "/v1/refunds/?order_id=x&sorting=status", token: readToken });
    expect(response.statusCode).toBe(422);
    expectReferenceResponse("refunds:list", 422, response.json());
  });
});

describe("GET /v1/refunds/ bad input", () => {
  const get =
    (query: string, token: () => string | null = () => readToken) =>
    () => ({ method: "GET" as const, url: `/v1/refunds/${query}`, token: token() });
  badInputTable(
    () => ctx.request,
    [
      { name: "no token", request: get("", () => null), status: 401 },
      { name: "a token without refunds:read or refunds:write", request: get("", () => ordersOnlyToken), status: 403 },
      { name: "a non-UUID id", request: get("?id=refund-1"), status: 422 },
      { name: "a non-UUID order_id", request: get("?order_id=12"), status: 422 },
      { name: "a non-UUID organization_id", request: get("?organization_id=abc"), status: 422 },
      { name: "a non-UUID customer_id", request: get("?customer_id=abc"), status: 422 },
      { name: "a non-UUID subscription_id", request: get("?subscription_id=abc"), status: 422 },
      { name: "an overlong external_customer_id", request: get(`?external_customer_id=${"e".repeat(257)}`), status: 422 },
      { name: "succeeded that is not a boolean", request: get("?succeeded=maybe"), status: 422 },
      { name: "an unknown sort key", request: get("?sorting=status"), status: 422 },
      { name: "page 0", request: get("?page=0"), status: 422, loc: ["query", "page"] },
      { name: "limit 0", request: get("?limit=0"), status: 422, loc: ["query", "limit"] },
      { name: "a page that is not a number", request: get("?page=two"), status: 422, loc: ["query", "page"] },
    ],
  );
});
