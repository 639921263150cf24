import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Updateable } from "kysely";
import type { SubscriptionsTable } from "../../../src/modules/subscriptions/subscriptions.table.ts";
import { badInputTable } from "../../helpers/bad-inputs.ts";
import { createTestContext, type TestContext } from "../../helpers/context.ts";
import {
  createCustomer,
  createCustomerSessionToken,
  createDiscount,
  createOrganization,
  createOrganizationToken,
  createProduct,
  createSubscription,
} from "../../helpers/factories.ts";
import { qs } from "../../helpers/query-string.ts";
import { expectReferenceResponse } from "../../helpers/reference.ts";

let ctx: TestContext;
let orgId: string;
let readToken: string;
let writeToken: string;
let productsToken: string;
let otherToken: string;
let sessionToken: string;
let foreignId: string;
let otherOrgId: string;
const start = new Date("2026-01-10T09:00:00.000Z");
const at = (seconds: number) => new Date(start.getTime() + seconds * 1000);
/** Six subscriptions, started one second apart in this order (index = start second − 1). */
const subs: string[] = [];
const ids: Record<string, string> = {};

beforeAll(async () => {
  ctx = await createTestContext();
  orgId = (await createOrganization(ctx.deps)).id;
  otherOrgId = (await createOrganization(ctx.deps)).id;
  const alice = await createCustomer(ctx.deps, orgId, { email: "alice@subs.example", external_id: "ext-alice" });
  const bob = await createCustomer(ctx.deps, orgId, { email: "bob@subs.example", external_id: "ext-bob" });
  const carol = await createCustomer(ctx.deps, orgId, { email: "carol@subs.example", external_id: "ext-carol" });
  const monthly = { recurring_interval: "month" as const, recurring_interval_count: 1 };
  const alpha = await createProduct(ctx.deps, orgId, { product: { name: "Alpha plan", ...monthly } });
  const beta = await createProduct(ctx.deps, orgId, { product: { name: "Beta plan", ...monthly } });
  const zeta = await createDiscount(ctx.deps, orgId, { name: "Zeta" });
  ids.alpha = alpha.product.id;
  ids.beta = beta.product.id;
  ids.alice = alice.id;
  ids.bob = bob.id;
  ids.zeta = zeta.id;
  // What each one became; the transitions themselves are tested where they happen.
  const specs: [typeof alice, typeof alpha, Updateable<SubscriptionsTable>][] = [
    [alice, alpha, { status: "active", amount: 1000, metadata: JSON.stringify({ tier: "gold" }) }],
    [bob, beta, { status: "trialing", amount: 3000, discount_id: zeta.id }],
    [alice, beta, { status: "past_due", amount: 2000, past_due_at: at(30) }],
    [
      bob,
      alpha,
      {
        status: "canceled",
        amount: 500,
        cancel_at_period_end: true,
        canceled_at: at(100),
        ends_at: at(200),
        ended_at: at(200),
        customer_cancellation_reason: "too_expensive",
      },
    ],
    [
      carol,
      alpha,
      {
        status: "active",
        amount: 1500,
        cancel_at_period_end: true,
        canceled_at: at(300),
        ends_at: at(400),
        customer_cancellation_reason: "unused",
      },
    ],
    [bob, alpha, { status: "unpaid", amount: 800 }],
  ];
  for (const [i, [customer, product, values]] of specs.entries()) {
    const row = await createSubscription(ctx.deps, orgId, { customer, product, now: at(i + 1) });
    await ctx.deps.db.updateTable("subscriptions").set(values).where("id", "=", row.id).execute();
    subs.push(row.id);
  }
  // Never started (the anchor's legacy incomplete rows): hidden from every read.
  const hidden = await createSubscription(ctx.deps, orgId, { customer: alice, product: alpha, now: at(50) });
  await ctx.deps.db.updateTable("subscriptions").set({ status: "incomplete", started_at: null }).where("id", "=", hidden.id).execute();
  ids.hidden = hidden.id;
  foreignId = (await createSubscription(ctx.deps, otherOrgId, { now: at(7) })).id;
  readToken = await createOrganizationToken(ctx.deps, orgId, ["subscriptions:read"]);
  writeToken = await createOrganizationToken(ctx.deps, orgId, ["subscriptions:write"]);
  productsToken = await createOrganizationToken(ctx.deps, orgId, ["products:read"]);
  otherToken = await createOrganizationToken(ctx.deps, otherOrgId, ["subscriptions:read"]);
  sessionToken = await createCustomerSessionToken(ctx.deps, alice.id);
});
afterAll(() => ctx.close());

const list = async (pairs: [string, string][], token = readToken) => {
  const response = await ctx.request({ method: "GET", url: `/v1/subscriptions/${qs(pairs)}`, token });
  expect(response.statusCode, response.body).toBe(200);
  const body = response.json();
  expectReferenceResponse("subscriptions:list", 200, body);
  return body as { items: { id: string }[]; pagination: { total_count: number; max_page: number } };
};
/** The ids a filter returns, in the answer's order, with the total count checked against them. */
const found = async (pairs: [string, string][], token?: string) => {
  const body = await list([...pairs, ["limit", "100"]], token);
  expect(body.pagination.total_count).toBe(body.items.length);
  return body.items.map((item) => item.id);
};
const these = (...indexes: number[]) => indexes.map((i) => subs[i]!);
const sorted = (values: string[]) => [...values].sort();

describe("GET /v1/subscriptions/", () => {
  it("lists the organization's started subscriptions, newest start first, never another organization's", async () => {
    expect(await found([])).toEqual(these(5, 4, 3, 2, 1, 0));
    expect(await found([], writeToken)).toEqual(these(5, 4, 3, 2, 1, 0));
    expect(await found([["organization_id", otherOrgId]])).toEqual([]);
    expect(await found([], otherToken)).toEqual([foreignId]);
    expect(
      sorted(
        await found(
          [
            ["organization_id", orgId],
            ["organization_id", otherOrgId],
          ],
          ctx.ownerToken,
        ),
      ),
    ).toEqual(sorted([...these(0, 1, 2, 3, 4, 5), foreignId]));
  });

  it("pages with the shared pagination: limit, page, total_count and max_page", async () => {
    const second = await list([
      ["limit", "4"],
      ["page", "2"],
    ]);
    expect(second.items.map((item) => item.id)).toEqual(these(1, 0));
    expect(second.pagination).toEqual({ total_count: 6, max_page: 2 });
    const past = await list([
      ["limit", "4"],
      ["page", "3"],
    ]);
    expect(past).toEqual({ items: [], pagination: { total_count: 6, max_page: 2 } });
  });

  it("filters by product, customer, external customer id and discount, several values OR'd", async () => {
    expect(await found([["product_id", ids.beta!]])).toEqual(these(2, 1));
    expect(await found([["customer_id", ids.alice!]])).toEqual(these(2, 0));
    expect(
      await found([
        ["customer_id", ids.alice!],
        ["customer_id", ids.bob!],
      ]),
    ).toEqual(these(5, 3, 2, 1, 0));
    expect(await found([["external_customer_id", "ext-bob"]])).toEqual(these(5, 3, 1));
    expect(await found([["external_customer_id", "ext-nobody"]])).toEqual([]);
    expect(await found([["discount_id", ids.zeta!]])).toEqual(these(1));
    expect(await found([["product_id", randomUUID()]])).toEqual([]);
  });

  it("filters by status, the deprecated active flag (false = canceled or unpaid only) and cancel_at_period_end", async () => {
    expect(await found([["status", "active"]])).toEqual(these(4, 0));
    expect(
      await found([
        ["status", "trialing"],
        ["status", "past_due"],
      ]),
    ).toEqual(these(2, 1));
    expect(await found([["active", "true"]])).toEqual(these(4, 1, 0));
    expect(await found([["active", "false"]])).toEqual(these(5, 3));
    expect(await found([["cancel_at_period_end", "true"]])).toEqual(these(4, 3));
    expect(await found([["cancel_at_period_end", "false"]])).toEqual(these(5, 2, 1, 0));
  });

  it("filters by cancellation reason and date (inclusive bounds) and by start date (strict bounds)", async () => {
    expect(await found([["customer_cancellation_reason", "unused"]])).toEqual(these(4));
    expect(
      await found([
        ["customer_cancellation_reason", "unused"],
        ["customer_cancellation_reason", "too_expensive"],
      ]),
    ).toEqual(these(4, 3));
    expect(await found([["canceled_at_after", at(100).toISOString()]])).toEqual(these(4, 3));
    expect(await found([["canceled_at_after", at(101).toISOString()]])).toEqual(these(4));
    expect(await found([["canceled_at_before", at(300).toISOString()]])).toEqual(these(4, 3));
    expect(await found([["canceled_at_before", at(299).toISOString()]])).toEqual(these(3));
    expect(await found([["started_after", at(2).toISOString()]])).toEqual(these(5, 4, 3, 2));
    expect(await found([["started_before", at(2).toISOString()]])).toEqual(these(0));
    expect(
      await found([
        ["started_after", at(1).toISOString()],
        ["started_before", at(4).toISOString()],
      ]),
    ).toEqual(these(2, 1));
  });

  it("filters by metadata", async () => {
    expect(await found([["metadata[tier]", "gold"]])).toEqual(these(0));
    expect(await found([["metadata[tier]", "silver"]])).toEqual([]);
  });

  it("sorts by each key of the reference, in both directions, ties broken by id", async () => {
    // amounts: 0→1000, 1→3000, 2→2000, 3→500, 4→1500, 5→800
    expect(await found([["sorting", "amount"]])).toEqual(these(3, 5, 0, 4, 2, 1));
    expect(await found([["sorting", "-amount"]])).toEqual(these(1, 2, 4, 0, 5, 3));
    expect(await found([["sorting", "started_at"]])).toEqual(these(0, 1, 2, 3, 4, 5));
    // The lifecycle order: trialing, active, past_due, canceled, unpaid; then the start, newest first.
    expect(
      await found([
        ["sorting", "status"],
        ["sorting", "-started_at"],
      ]),
    ).toEqual(these(1, 4, 0, 2, 3, 5));
    // Customer by email: alice (0, 2), bob (1, 3, 5), carol (4).
    expect(
      await found([
        ["sorting", "-customer"],
        ["sorting", "started_at"],
      ]),
    ).toEqual(these(4, 1, 3, 5, 0, 2));
    expect(
      await found([
        ["sorting", "product"],
        ["sorting", "started_at"],
      ]),
    ).toEqual(these(0, 3, 4, 5, 1, 2));
    // Only 1 has a discount: nulls last ascending, first descending.
    expect(
      (
        await found([
          ["sorting", "discount"],
          ["sorting", "started_at"],
        ])
      )[0],
    ).toBe(subs[1]);
    expect(
      (
        await found([
          ["sorting", "-discount"],
          ["sorting", "started_at"],
        ])
      ).at(-1),
    ).toBe(subs[1]);
    expect(
      await found([
        ["sorting", "ends_at"],
        ["sorting", "started_at"],
      ]),
    ).toEqual(these(3, 4, 0, 1, 2, 5));
    expect(
      await found([
        ["sorting", "ended_at"],
        ["sorting", "started_at"],
      ]),
    ).toEqual(these(3, 0, 1, 2, 4, 5));
    const periodEnds = await found([["sorting", "current_period_end"]]);
    expect(periodEnds).toEqual(these(0, 1, 2, 3, 4, 5));
  });

  it("hides a subscription that never started, from the list and from GET", async () => {
    expect(
      await found([
        ["customer_id", ids.alice!],
        ["status", "incomplete"],
      ]),
    ).toEqual([]);
    const response = await ctx.request({ method: "GET", url: `/v1/subscriptions/${ids.hidden}`, token: readToken });
    expect(response.statusCode).toBe(404);
  });

  // Tokens are read when a case runs: they do not exist yet while the cases are collected.
  const get = (query: string, token?: () => string | null) => () => ({
    method: "GET" as const,
    url: `/v1/subscriptions/${query}`,
    token: token ? token() : readToken,
  });
  badInputTable(
    () => ctx.request,
    [
      { name: "limit 0", request: get("?limit=0"), status: 422, loc: ["query", "limit"] },
      { name: "page 0", request: get("?page=0"), status: 422, loc: ["query", "page"] },
      { name: "an unknown sorting key", request: get("?sorting=-started_at&sorting=weight"), status: 422, loc: ["query", "sorting", 1] },
      { name: "a non-UUID product_id", request: get("?product_id=alpha"), status: 422, loc: ["query", "product_id"] },
      {
        name: "a non-UUID among several customer_id",
        request: () => get(`?customer_id=${ids.alice}&customer_id=x`)(),
        status: 422,
        loc: ["query", "customer_id", 1],
      },
      { name: "an unknown status", request: get("?status=frozen"), status: 422, loc: ["query", "status"] },
      {
        name: "an unknown cancellation reason",
        request: get("?customer_cancellation_reason=bored"),
        status: 422,
        loc: ["query", "customer_cancellation_reason"],
      },
      { name: "a non-boolean active", request: get("?active=maybe"), status: 422, loc: ["query", "active"] },
      {
        name: "a started_after that is not a date-time",
        request: get("?started_after=yesterday"),
        status: 422,
        loc: ["query", "started_after"],
      },
      {
        name: "an overlong external_customer_id",
        request: get(`?external_customer_id=${"e".repeat(257)}`),
        status: 422,
        loc: ["query", "external_customer_id"],
      },
      { name: "no token", request: get("", () => null), status: 401, error: "Unauthorized" },
      { name: "an unknown token", request: get("", () => "polar_oat_unknown"), status: 401, error: "invalid_token" },
      { name: "a customer session", request: get("", () => sessionToken), status: 401, error: "Unauthorized" },
      { name: "a token without subscriptions:read", request: get("", () => productsToken), status: 403, error: "insufficient_scope" },
    ],
  );
});

describe("GET /v1/subscriptions/{id}", () => {
  it("answers the subscription with its customer, product, prices and discount", async () => {
    const response = await ctx.request({ method: "GET", url: `/v1/subscriptions/${subs[1]}`, token: readToken });
    expect(response.statusCode, response.body).toBe(200);
    const body = response.json();
    expectReferenceResponse("subscriptions:get", 200, body);
    expect(body).toMatchObject({
      id: subs[1],
      status: "trialing",
      customer: { id: ids.bob, email: "bob@subs.example", external_id: "ext-bob" },
      product: { id: ids.beta, name: "Beta plan" },
      discount: { id: ids.zeta, name: "Zeta" },
      started_at: at(2).toISOString(),
    });
    expect(body.prices).toHaveLength(1);
  });

  const get =
    (id: () => string, token: () => string | null = () => readToken) =>
    () => ({
      method: "GET" as const,
      url: `/v1/subscriptions/${id()}`,
      token: token(),
    });
  badInputTable(
    () => ctx.request,
    [
      { name: "a non-UUID id", request: get(() => "sub_1"), status: 422, loc: ["path", "id"] },
      { name: "an unknown id", request: get(() => randomUUID()), status: 404, error: "ResourceNotFound" },
      { name: "another organization's subscription", request: get(() => foreignId), status: 404, error: "ResourceNotFound" },
      {
        name: "no token",
        request: get(
          () => subs[0]!,
          () => null,
        ),
        status: 401,
        error: "Unauthorized",
      },
      {
        name: "a customer session",
        request: get(
          () => subs[0]!,
          () => sessionToken,
        ),
        status: 401,
        error: "Unauthorized",
      },
      {
        name: "a token without subscriptions:read",
        request: get(
          () => subs[0]!,
          () => productsToken,
        ),
        status: 403,
        error: "insufficient_scope",
      },
    ],
  );
});
