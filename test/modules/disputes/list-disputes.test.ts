import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { badInputTable } from "../../helpers/bad-inputs.ts";
import type { TestContext } from "../../helpers/context.ts";
import { createOrganization, createOrganizationToken, openOrganizationContext } from "../../helpers/factories.ts";
import { qs } from "../../helpers/query-string.ts";
import { expectReferenceResponse } from "../../helpers/reference.ts";
import { paidOrder } from "../refunds/refund-helpers.ts";
import { recordDispute } from "./dispute-helpers.ts";
import type { DisputeRow } from "../../../src/modules/disputes/disputes.table.ts";

let ctx: TestContext;
let org: { id: string };
let readToken: string;
let writeToken: string;
let ordersOnlyToken: string;
let otherOrgId: string;
/** The organization's disputes in creation order: [1200 needs_response, 600 under_review (same order), 2400 lost]. */
let disputes: DisputeRow[];
let foreign: DisputeRow;

beforeAll(async () => {
  let checkoutToken: string;
  ({
    ctx,
    org,
    tokens: [checkoutToken, writeToken, readToken, ordersOnlyToken],
  } = await openOrganizationContext(["checkouts:write"], ["disputes:write"], ["disputes:read"], ["orders:read"]));
  const first = await paidOrder(ctx, org.id, checkoutToken, { price: 1000, email: "first@disputes.example" });
  const second = await paidOrder(ctx, org.id, checkoutToken, { price: 2000 });
  const record = async (...args: Parameters<typeof recordDispute>) => {
    ctx.clock.advance(1000);
    return (await recordDispute(...args))!;
  };
  disputes = [
    await record(ctx, first),
    await record(ctx, first, { amount: 600, status: "under_review", evidenceDueBy: null }),
    await record(ctx, second, { status: "lost", reason: null, evidenceDueBy: new Date(ctx.deps.now().getTime() - 1000) }),
  ];
  otherOrgId = (await createOrganization(ctx.deps)).id;
  const otherCheckout = await createOrganizationToken(ctx.deps, otherOrgId, ["checkouts:write"]);
  foreign = (await recordDispute(ctx, await paidOrder(ctx, otherOrgId, otherCheckout)))!;
});
afterAll(() => ctx.close());

const list = async (pairs: [string, string][], token = readToken) => {
  const response = await ctx.request({ method: "GET", url: `/v1/disputes/${qs(pairs)}`, token });
  expect(response.statusCode, response.body).toBe(200);
  expectReferenceResponse("disputes:list", 200, response.json());
  return response.json<{ items: { id: string }[]; pagination: { total_count: number; max_page: number } }>();
};
const ids = async (pairs: [string, string][], token?: string) => (await list(pairs, token)).items.map((item) => item.id);
const pick = (...indexes: number[]) => indexes.map((i) => disputes[i]!.id);

describe("GET /v1/disputes/{id}", () => {
  const get = (id: string, token = readToken) => ctx.request({ method: "GET", url: `/v1/disputes/${id}`, token });

  it("answers the dispute in the reference's shape, its customer embedded", async () => {
    const [open] = disputes as [DisputeRow];
    const response = await get(open.id, writeToken);
    expect(response.statusCode, response.body).toBe(200);
    expectReferenceResponse("disputes:get", 200, response.json());
    const order = await ctx.deps.db.selectFrom("orders").selectAll().where("id", "=", open.order_id).executeTakeFirstOrThrow();
    expect(response.json()).toEqual({
      created_at: open.created_at.toISOString(),
      modified_at: null,
      id: open.id,
      status: "needs_response",
      resolved: false,
      closed: false,
      amount: 1000,
      tax_amount: 200,
      currency: order.currency,
      reason: "fraudulent",
      evidence_due_by: open.evidence_due_by!.toISOString(),
      past_due: false,
      order_id: order.id,
      payment_id: open.payment_id,
      customer: expect.objectContaining({ id: order.customer_id, email: "first@disputes.example", organization_id: org.id }),
      case_id: null,
    });
  });

  it("reads resolved, closed and past_due from the status and the deadline", async () => {
    const lost = (await get(disputes[2]!.id)).json();
    expect(lost).toMatchObject({ status: "lost", resolved: true, closed: true, past_due: true, reason: null });
    const review = (await get(disputes[1]!.id)).json();
    expect(review).toMatchObject({ status: "under_review", resolved: false, closed: false, past_due: false, evidence_due_by: null });
    // The deadline passes as the clock runs.
    ctx.clock.advance(8 * 86_400_000);
    try {
      expect((await get(disputes[0]!.id)).json()).toMatchObject({ past_due: true });
    } finally {
      ctx.clock.advance(-8 * 86_400_000);
    }
  });

  it("answers 404 for another organization's dispute and an unknown id", async () => {
    for (const id of [foreign.id, "00000000-0000-4000-8000-000000000000"]) {
      const response = await get(id);
      expect(response.statusCode).toBe(404);
      expectReferenceResponse("disputes:get", 404, response.json());
    }
    expect((await get(foreign.id, ctx.ownerToken)).statusCode).toBe(200);
  });
});

describe("GET /v1/disputes/", () => {
  it("lists the organization's disputes newest first, never another organization's", async () => {
    const body = await list([]);
    expect(body.items.map((item) => item.id)).toEqual(pick(2, 1, 0));
    expect(body.pagination).toEqual({ total_count: 3, max_page: 1 });
    expect(await ids([], writeToken)).toEqual(pick(2, 1, 0));
    expect(await ids([["organization_id", otherOrgId]])).toEqual([]);
    expect(await ids([["organization_id", otherOrgId]], ctx.ownerToken)).toEqual([foreign.id]);
  });

  it("filters by order and status, one value or several", async () => {
    expect(await ids([["order_id", disputes[0]!.order_id]])).toEqual(pick(1, 0));
    expect(await ids([["status", "lost"]])).toEqual(pick(2));
    expect(
      await ids([
        ["status", "needs_response"],
        ["status", "under_review"],
      ]),
    ).toEqual(pick(1, 0));
    expect(await ids([["status", "won"]])).toEqual([]);
    expect(
      await ids([
        ["order_id", disputes[2]!.order_id],
        ["status", "needs_response"],
      ]),
    ).toEqual([]);
  });

  it("sorts by amount and creation, both ways, and pages without repeats", async () => {
    expect(await ids([["sorting", "amount"]])).toEqual(pick(1, 0, 2));
    expect(await ids([["sorting", "-amount"]])).toEqual(pick(2, 0, 1));
    expect(await ids([["sorting", "created_at"]])).toEqual(pick(0, 1, 2));
    const page = (n: number) =>
      list([
        ["sorting", "created_at"],
        ["limit", "2"],
        ["page", String(n)],
      ]);
    const [page1, page2] = [await page(1), await page(2)];
    expect(page1.pagination).toEqual({ total_count: 3, max_page: 2 });
    expect([...page1.items, ...page2.items].map((item) => item.id)).toEqual(pick(0, 1, 2));
  });

  it("answers a bad filter in the reference's 422 shape", async () => {
    const response = await ctx.request({ method: "GET", url: "/v1/disputes/?status=open&sorting=status", token: readToken });
    expect(response.statusCode).toBe(422);
    expectReferenceResponse("disputes:list", 422, response.json());
  });
});

describe("GET /v1/disputes/ bad input", () => {
  const get =
    (path: string, token: () => string | null = () => readToken) =>
    () => ({ method: "GET" as const, url: `/v1/disputes/${path}`, token: token() });
  badInputTable(
    () => ctx.request,
    [
      { name: "list: no token", request: get("", () => null), status: 401 },
      { name: "list: a token without disputes:read or disputes:write", request: get("", () => ordersOnlyToken), status: 403 },
      { name: "list: a non-UUID order_id", request: get("?order_id=12"), status: 422, loc: ["query", "order_id"] },
      { name: "list: a non-UUID organization_id", request: get("?organization_id=abc"), status: 422 },
      { name: "list: an unknown status", request: get("?status=open"), status: 422 },
      { name: "list: an unknown sort key", request: get("?sorting=status"), status: 422 },
      { name: "list: page 0", request: get("?page=0"), status: 422, loc: ["query", "page"] },
      { name: "list: limit 0", request: get("?limit=0"), status: 422, loc: ["query", "limit"] },
      { name: "get: no token", request: get("00000000-0000-4000-8000-000000000000", () => null), status: 401 },
      {
        name: "get: a token without disputes scopes",
        request: get("00000000-0000-4000-8000-000000000000", () => ordersOnlyToken),
        status: 403,
      },
      { name: "get: a non-UUID id", request: get("dp_1"), status: 422, loc: ["path", "id"] },
      { name: "get: another organization's dispute", request: () => get(foreign.id)(), status: 404, error: "ResourceNotFound" },
    ],
  );
});
