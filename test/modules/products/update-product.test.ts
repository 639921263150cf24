import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { badInputTable } from "../../helpers/bad-inputs.ts";
import type { TestContext } from "../../helpers/context.ts";
import { createOrganization, createOrganizationToken, createProduct, openOrganizationContext } from "../../helpers/factories.ts";
import { expectReferenceResponse } from "../../helpers/reference.ts";

let ctx: TestContext;
let orgId: string;
let token: string;
let foreignProductId: string;
const UNKNOWN = "3f2b1c4d-1111-4222-8333-123456789abc";

beforeAll(async () => {
  ({
    ctx,
    org: { id: orgId },
    tokens: [token],
  } = await openOrganizationContext(["products:write", "benefits:write"]));
  foreignProductId = (await createProduct(ctx.deps, (await createOrganization(ctx.deps)).id)).product.id;
});
afterAll(() => ctx.close());

const patch = (id: string, payload: unknown, as: string | null = token) =>
  ctx.request({ method: "PATCH", url: `/v1/products/${id}`, token: as, payload: payload as object });
const monthly = () =>
  createProduct(ctx.deps, orgId, {
    product: { recurring_interval: "month", recurring_interval_count: 1 },
    prices: [
      { amount_type: "fixed", price_amount: 1000 },
      { amount_type: "fixed", price_amount: 900, price_currency: "eur" },
    ],
  });

describe("PATCH /v1/products/{id}", () => {
  it("updates fields, keeps listed prices by ID, archives the rest and adds new ones in list order", async () => {
    const { product, prices } = await monthly();
    ctx.clock.advance(1000);
    const response = await patch(product.id, {
      name: "Renamed",
      description: null,
      visibility: "draft",
      metadata: { v: 2 },
      recurring_interval: "year",
      trial_interval: "day",
      trial_interval_count: 7,
      prices: [{ amount_type: "fixed", price_amount: 1500, price_currency: "gbp" }, { id: prices[1]!.id }],
    });
    expect(response.statusCode, response.body).toBe(200);
    const body = response.json();
    expectReferenceResponse("products:update", 200, body);
    expect(body).toMatchObject({
      name: "Renamed",
      description: null,
      visibility: "draft",
      metadata: { v: 2 },
      recurring_interval: "year",
      trial_interval: "day",
      trial_interval_count: 7,
      modified_at: ctx.clock.now().toISOString(),
    });
    expect(body.prices.map((p: { price_currency: string; price_amount: number }) => [p.price_currency, p.price_amount])).toEqual([
      ["gbp", 1500],
      ["eur", 900],
    ]);
    expect(body.prices[1].id).toBe(prices[1]!.id);
    const archived = await ctx.deps.db
      .selectFrom("product_prices")
      .select(["id", "is_archived"])
      .where("id", "=", prices[0]!.id)
      .executeTakeFirstOrThrow();
    expect(archived.is_archived).toBe(true);
  });

  it("archives the product and clears the trial", async () => {
    const { product } = await createProduct(ctx.deps, orgId, {
      product: { recurring_interval: "month", recurring_interval_count: 1, trial_interval: "week", trial_interval_count: 1 },
    });
    const body = (await patch(product.id, { is_archived: true, trial_interval: null, trial_interval_count: null })).json();
    expect(body).toMatchObject({ is_archived: true, trial_interval: null, trial_interval_count: null });
  });

  it("applies concurrent price replacements one after another: the live prices are exactly one request's list", async () => {
    // Each request's list is its own in both prices, so a list mixed from two requests shows.
    const lists = [100, 200, 300, 400, 500, 600].map((amount) => [
      { amount_type: "fixed", price_amount: amount + 1, price_currency: "eur" },
      { amount_type: "fixed", price_amount: amount, price_currency: "usd" },
    ]);
    // Several rounds, so that an interleaving that mixes or loses a list has many chances to show.
    for (let round = 0; round < 5; round += 1) {
      const { product } = await monthly();
      const responses = await Promise.all(lists.map((prices) => patch(product.id, { prices })));
      expect(responses.map((r) => r.statusCode)).toEqual(lists.map(() => 200));
      const rows = await ctx.deps.db.selectFrom("product_prices").selectAll().where("product_id", "=", product.id).execute();
      const live = rows
        .filter((price) => !price.is_archived)
        .map((price) => ({ amount_type: price.amount_type, price_amount: price.price_amount, price_currency: price.price_currency }))
        .sort((a, b) => a.price_currency.localeCompare(b.price_currency));
      expect(lists).toContainEqual(live);
      // One after another, each replacement archived the two prices live before it: the product's
      // first two and five lists of two, none left live beside the last list.
      expect(rows.filter((price) => price.is_archived)).toHaveLength(2 + 5 * 2);
      expect(rows).toHaveLength(2 + 6 * 2);
    }
  });

  it("attaches benefits in order through POST /v1/products/{id}/benefits, and replaces them", async () => {
    const { product } = await monthly();
    const benefit = async (description: string) =>
      (
        await ctx.request({
          method: "POST",
          url: "/v1/benefits/",
          token,
          payload: { type: "license_keys", description, properties: { prefix: "K" } },
        })
      ).json().id as string;
    const first = await benefit("First key");
    const second = await benefit("Second key");
    const response = await ctx.request({
      method: "POST",
      url: `/v1/products/${product.id}/benefits`,
      token,
      payload: { benefits: [second, first, second] },
    });
    expect(response.statusCode, response.body).toBe(200);
    expectReferenceResponse("products:get", 200, response.json());
    expect(response.json().benefits.map((b: { id: string }) => b.id)).toEqual([second, first]);
    expect(response.json().benefits[0]).toMatchObject({
      type: "license_keys",
      properties: { prefix: "K", expires: null, activations: null, limit_usage: null },
    });
    const replaced = await ctx.request({
      method: "POST",
      url: `/v1/products/${product.id}/benefits`,
      token,
      payload: { benefits: [first] },
    });
    expect(replaced.json().benefits.map((b: { id: string }) => b.id)).toEqual([first]);
    const unknown = await ctx.request({
      method: "POST",
      url: `/v1/products/${product.id}/benefits`,
      token,
      payload: { benefits: [first, UNKNOWN] },
    });
    expect(unknown.statusCode).toBe(422);
    expect(unknown.json().detail[0].loc).toEqual(["body", "benefits", 1]);
  });

  describe("bad input", () => {
    let target: { id: string; priceIds: string[] };
    let oneTimeId: string;
    let snapshot: unknown;
    let readToken: string;
    const state = async () => ({
      product: await ctx.deps.db.selectFrom("products").selectAll().where("id", "=", target.id).executeTakeFirstOrThrow(),
      prices: await ctx.deps.db.selectFrom("product_prices").selectAll().where("product_id", "=", target.id).orderBy("id").execute(),
    });
    beforeAll(async () => {
      const created = await monthly();
      target = { id: created.product.id, priceIds: created.prices.map((p) => p.id) };
      oneTimeId = (await createProduct(ctx.deps, orgId)).product.id;
      readToken = await createOrganizationToken(ctx.deps, orgId, ["products:read"]);
      snapshot = await state();
    });
    // Payloads may name fixtures, which exist only once beforeAll has run: those are given lazily.
    const req =
      (payload: object | (() => object), id: () => string = () => target.id, as: () => string | null = () => token) =>
      () => ({
        method: "PATCH" as const,
        url: `/v1/products/${id()}`,
        token: as(),
        payload: typeof payload === "function" ? payload() : payload,
      });

    badInputTable(
      () => ctx.request,
      [
        { name: "a two-character name", request: req({ name: "ab" }), status: 422, loc: ["body", "name"] },
        { name: "an empty price list", request: req({ prices: [] }), status: 422, loc: ["body", "prices"] },
        { name: "an unknown existing price", request: req({ prices: [{ id: UNKNOWN }] }), status: 422, loc: ["body", "prices", 0, "id"] },
        {
          name: "a price listed twice",
          request: req(() => ({ prices: [{ id: target.priceIds[0] }, { id: target.priceIds[0] }] })),
          status: 422,
          loc: ["body", "prices", 1, "id"],
        },
        {
          name: "a new price clashing with a kept one's currency",
          request: req(() => ({ prices: [{ id: target.priceIds[0] }, { amount_type: "custom" }] })),
          status: 422,
          loc: ["body", "prices", 1],
        },
        {
          name: "a trial count without interval",
          request: req({ trial_interval_count: 3 }),
          status: 422,
          loc: ["body", "trial_interval_count"],
        },
        {
          name: "a recurring interval on a one-time product",
          request: req({ recurring_interval: "month" }, () => oneTimeId),
          status: 422,
          loc: ["body", "recurring_interval"],
        },
        {
          name: "a trial on a one-time product",
          request: req({ trial_interval: "day", trial_interval_count: 1 }, () => oneTimeId),
          status: 422,
          loc: ["body", "trial_interval"],
        },
        { name: "a media of no product", request: req({ medias: [UNKNOWN] }), status: 422, loc: ["body", "medias", 0] },
        { name: "is_archived as a string", request: req({ is_archived: "yes" }), status: 422, loc: ["body", "is_archived"] },
        { name: "an unknown id", request: req({ name: "Valid" }, () => UNKNOWN), status: 404, error: "ResourceNotFound" },
        {
          name: "another organization's product",
          request: req({ name: "Valid" }, () => foreignProductId),
          status: 404,
          error: "ResourceNotFound",
        },
        { name: "a non-UUID id", request: req({ name: "Valid" }, () => "x"), status: 422, loc: ["path", "id"] },
        {
          name: "a read-only token",
          request: req(
            { name: "Valid" },
            () => target.id,
            () => readToken,
          ),
          status: 403,
          error: "insufficient_scope",
        },
        {
          name: "no token",
          request: req(
            { name: "Valid" },
            () => target.id,
            () => null,
          ),
          status: 401,
          error: "Unauthorized",
        },
        {
          name: "benefits of another organization's product",
          request: () => ({ method: "POST", url: `/v1/products/${foreignProductId}/benefits`, token, payload: { benefits: [] } }),
          status: 404,
          error: "ResourceNotFound",
        },
        {
          name: "benefits that are not UUIDs",
          request: () => ({ method: "POST", url: `/v1/products/${target.id}/benefits`, token, payload: { benefits: ["x"] } }),
          status: 422,
          loc: ["body", "benefits", 0],
        },
      ],
      async () => expect(await state()).toEqual(snapshot),
    );
  });
});
