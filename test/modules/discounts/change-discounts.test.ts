import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { badInputTable, tokenRefusals, type BadInputCase, type TokenSource } from "../../helpers/bad-inputs.ts";
import type { TestContext } from "../../helpers/context.ts";
import { createDiscount, createOrganization, createProduct, openOrganizationContext } from "../../helpers/factories.ts";
import { expectReferenceResponse } from "../../helpers/reference.ts";
import { openCheckoutThroughApi } from "../checkouts/checkout-helpers.ts";
import { BUYER } from "../subscriptions/subscription-helpers.ts";

// PATCH and DELETE /v1/discounts/{id}: what may change once a discount was redeemed, codes unique
// among live discounts, the soft delete and what the checkouts holding a deleted discount do.

let ctx: TestContext;
let orgId: string;
let token: string;
let readToken: string;
let checkoutToken: string;
let productId: string;
let foreignId: string;
const UNKNOWN = "3f2b1c4d-1111-4222-8333-123456789abc";
const REDEEMED = "This field cannot be changed because the discount has already been redeemed.";

beforeAll(async () => {
  ({
    ctx,
    org: { id: orgId },
    tokens: [token, readToken, checkoutToken],
  } = await openOrganizationContext(["discounts:write"], ["discounts:read"], ["checkouts:write"]));
  productId = (await createProduct(ctx.deps, orgId, { prices: [{ amount_type: "fixed", price_amount: 5000 }] })).product.id;
  foreignId = (await createDiscount(ctx.deps, (await createOrganization(ctx.deps)).id, { name: "Foreign" })).id;
});
afterAll(() => ctx.close());

const patch = (id: string, payload: Record<string, unknown>, as: string | null = token) =>
  ctx.request({ method: "PATCH", url: `/v1/discounts/${id}`, token: as, payload });

async function patched(id: string, payload: Record<string, unknown>) {
  const response = await patch(id, payload);
  expect(response.statusCode, response.body).toBe(200);
  expectReferenceResponse("discounts:update", 200, response.json());
  return response.json();
}

async function refused(id: string, payload: Record<string, unknown>) {
  const before = await snapshot();
  const response = await patch(id, payload);
  expect(response.statusCode, response.body).toBe(422);
  expect(await snapshot()).toBe(before);
  return response.json().detail as { loc: (string | number)[]; msg: string }[];
}

/** Everything a refused request must leave as it was: the discounts, their products and the webhook events. */
async function snapshot() {
  const [discounts, links, events] = await Promise.all([
    ctx.deps.db.selectFrom("discounts").selectAll().orderBy("id").execute(),
    ctx.deps.db.selectFrom("discount_products").selectAll().orderBy("discount_id").orderBy("product_id").execute(),
    ctx.deps.db.selectFrom("webhook_events").select("id").execute(),
  ]);
  return JSON.stringify({ discounts, links, events: events.length });
}

const eventsAbout = async (id: string) =>
  (
    await ctx.deps.db
      .selectFrom("webhook_events")
      .select(["type", "payload"])
      .where("organization_id", "=", orgId)
      .orderBy("position")
      .execute()
  )
    .filter((row) => (row.payload.data as unknown as { id: string }).id === id)
    .map((row) => ({ type: row.type, data: row.payload.data as unknown as Record<string, unknown> }));

describe("PATCH /v1/discounts/{id}", () => {
  it("changes the fields sent, replaces the products, and sends discount.updated", async () => {
    const discount = await createDiscount(ctx.deps, orgId, {
      name: "Spring",
      code: "SPRING",
      duration: "repeating",
      duration_in_months: 2,
    });
    ctx.clock.advance(60_000);
    const body = await patched(discount.id, {
      name: "Spring sale",
      code: "SPRING10",
      basis_points: 1500,
      duration_in_months: 4,
      duration: "repeating",
      type: "percentage",
      ends_at: "2027-06-01T00:00:00Z",
      max_redemptions: 10,
      products: [productId],
      metadata: { season: "spring" },
    });
    expect(body).toMatchObject({
      id: discount.id,
      name: "Spring sale",
      code: "SPRING10",
      basis_points: 1500,
      duration: "repeating",
      duration_in_months: 4,
      ends_at: "2027-06-01T00:00:00.000Z",
      max_redemptions: 10,
      metadata: { season: "spring" },
      modified_at: ctx.clock.now().toISOString(),
    });
    expect(body.products.map((p: { id: string }) => p.id)).toEqual([productId]);

    // Null clears what may be empty; an empty list lifts the restriction; absent fields stay.
    const cleared = await patched(discount.id, { code: null, ends_at: null, max_redemptions: null, products: [] });
    expect(cleared).toMatchObject({
      name: "Spring sale",
      code: null,
      ends_at: null,
      max_redemptions: null,
      products: [],
      basis_points: 1500,
    });
    const read = await ctx.request({ method: "GET", url: `/v1/discounts/${discount.id}`, token: readToken });
    expect(read.json()).toEqual(cleared);
    const events = await eventsAbout(discount.id);
    expect(events.map((event) => event.type)).toEqual(["discount.updated", "discount.updated"]);
    expect(events[1]!.data).toEqual(cleared);
  });

  it("keeps codes unique among live discounts, compared case-insensitively", async () => {
    await createDiscount(ctx.deps, orgId, { code: "TAKEN" });
    await createDiscount(ctx.deps, orgId, { code: "RETIRED", deleted_at: new Date() });
    const discount = await createDiscount(ctx.deps, orgId, { code: "MINE" });
    expect(await refused(discount.id, { code: "taken" })).toEqual([
      expect.objectContaining({ loc: ["body", "code"], msg: "Value error, Discount with this code already exists." }),
    ]);
    expect((await patched(discount.id, { code: "retired" })).code).toBe("retired");
    // Its own code, in another case, is no clash.
    expect((await patched(discount.id, { code: "RETIRED" })).code).toBe("RETIRED");
  });

  it("never changes the duration or the type", async () => {
    const discount = await createDiscount(ctx.deps, orgId, { duration: "once" });
    expect(await refused(discount.id, { duration: "forever", type: "fixed" })).toEqual([
      { loc: ["body", "duration"], msg: "Duration cannot be changed.", type: "value_error", input: "forever" },
      { loc: ["body", "type"], msg: "Type cannot be changed.", type: "value_error", input: "fixed" },
    ]);
    expect((await refused(discount.id, { duration_in_months: 3 }))[0]!.loc).toEqual(["body", "duration_in_months"]);
    expect((await refused(discount.id, { amounts: { usd: 100 } }))[0]!.loc).toEqual(["body", "amounts"]);
  });

  it("once redeemed, keeps what it takes off and for how long; the rest stays editable", async () => {
    const percentage = await createDiscount(ctx.deps, orgId, { redemptions_count: 1, duration: "repeating", duration_in_months: 3 });
    expect(await refused(percentage.id, { basis_points: 2000, duration_in_months: 6 })).toEqual([
      expect.objectContaining({ loc: ["body", "duration_in_months"], msg: REDEEMED }),
      expect.objectContaining({ loc: ["body", "basis_points"], msg: REDEEMED }),
    ]);
    // The same values sent again (a dashboard's whole form) are no change.
    expect(await patched(percentage.id, { basis_points: 1000, duration_in_months: 3, name: "Renamed", max_redemptions: 1 })).toMatchObject({
      name: "Renamed",
      basis_points: 1000,
      max_redemptions: 1,
      redemptions_count: 1,
    });
    const fixed = await createDiscount(ctx.deps, orgId, {
      type: "fixed",
      basis_points: null,
      amounts: JSON.stringify({ usd: 500, eur: 450 }),
      redemptions_count: 2,
    });
    expect((await refused(fixed.id, { amounts: { usd: 500 } }))[0]).toMatchObject({ loc: ["body", "amounts"], msg: REDEEMED });
    expect((await refused(fixed.id, { amount: 600, currency: "usd" }))[0]).toMatchObject({ loc: ["body", "amount"], msg: REDEEMED });
    expect((await patched(fixed.id, { amounts: { eur: 450, usd: 500 }, products: [productId] })).products).toHaveLength(1);
    // Not redeemed, the amounts change.
    const fresh = await createDiscount(ctx.deps, orgId, { type: "fixed", basis_points: null, amounts: JSON.stringify({ usd: 500 }) });
    expect(await patched(fresh.id, { amounts: { usd: 700, eur: 650 } })).toMatchObject({ amounts: { usd: 700, eur: 650 } });
  });

  describe("bad input", () => {
    let target: string;
    let before: string;
    beforeAll(async () => {
      target = (await createDiscount(ctx.deps, orgId, { name: "Target", starts_at: new Date("2027-01-01T00:00:00Z") })).id;
      before = await snapshot();
    });
    const at =
      (id: () => string, payload: unknown, as: TokenSource = () => token): BadInputCase["request"] =>
      () => ({ method: "PATCH", url: `/v1/discounts/${id()}`, token: as(), payload: payload as object });
    const own = () => target;

    badInputTable(
      () => ctx.request,
      [
        { name: "an empty name", request: at(own, { name: "" }), status: 422, loc: ["body", "name"] },
        { name: "an overlong name", request: at(own, { name: "n".repeat(257) }), status: 422, loc: ["body", "name"] },
        { name: "a code with a space", request: at(own, { code: "TWO WORDS" }), status: 422, loc: ["body", "code"] },
        { name: "a two-character code", request: at(own, { code: "AB" }), status: 422, loc: ["body", "code"] },
        { name: "basis points above 10000", request: at(own, { basis_points: 10_001 }), status: 422, loc: ["body", "basis_points"] },
        { name: "basis points as text", request: at(own, { basis_points: "10" }), status: 422, loc: ["body", "basis_points"] },
        { name: "zero max redemptions", request: at(own, { max_redemptions: 0 }), status: 422, loc: ["body", "max_redemptions"] },
        { name: "an unknown duration", request: at(own, { duration: "weekly" }), status: 422, loc: ["body", "duration"] },
        { name: "an end before the start", request: at(own, { ends_at: "2026-12-01T00:00:00Z" }), status: 422, loc: ["body", "ends_at"] },
        { name: "a date that is none", request: at(own, { starts_at: "tomorrow" }), status: 422, loc: ["body", "starts_at"] },
        { name: "a non-UUID product", request: at(own, { products: ["p"] }), status: 422, loc: ["body", "products", 0] },
        { name: "an unknown product", request: at(own, { products: [UNKNOWN] }), status: 422, loc: ["body", "products", 0] },
        { name: "metadata of the wrong type", request: at(own, { metadata: [] }), status: 422, loc: ["body", "metadata"] },
        { name: "a non-UUID id", request: at(() => "d", { name: "X" }), status: 422, loc: ["path", "id"] },
        { name: "an unknown id", request: at(() => UNKNOWN, { name: "X" }), status: 404, error: "ResourceNotFound" },
        { name: "another organization's discount", request: at(() => foreignId, { name: "Mine" }), status: 404, error: "ResourceNotFound" },
        ...tokenRefusals((as) => at(own, { name: "Renamed" }, as), {
          "a read-only token": () => readToken,
          "a token of another feature": () => checkoutToken,
        }),
      ],
      async () => expect(await snapshot()).toBe(before),
    );
  });
});

describe("DELETE /v1/discounts/{id}", () => {
  it("soft-deletes a redeemed discount: gone from reads and new checkouts, its code free, discount.deleted sent", async () => {
    const discount = await createDiscount(ctx.deps, orgId, { name: "Closing", code: "CLOSING", redemptions_count: 3 });
    const response = await ctx.request({ method: "DELETE", url: `/v1/discounts/${discount.id}`, token });
    expect(response.statusCode, response.body).toBe(204);
    expect(response.body).toBe("");
    expect((await ctx.request({ method: "GET", url: `/v1/discounts/${discount.id}`, token: readToken })).statusCode).toBe(404);
    expect((await ctx.request({ method: "DELETE", url: `/v1/discounts/${discount.id}`, token })).statusCode).toBe(404);
    const listed = (await ctx.request({ method: "GET", url: "/v1/discounts/?query=closing", token: readToken })).json();
    expect(listed.items).toEqual([]);
    const events = await eventsAbout(discount.id);
    expect(events.map((event) => event.type)).toEqual(["discount.deleted"]);
    expect(events[0]!.data).toMatchObject({ id: discount.id, name: "Closing", redemptions_count: 3 });
    expectReferenceResponse("discounts:get", 200, events[0]!.data);

    const checkout = await ctx.request({
      method: "POST",
      url: "/v1/checkouts/",
      token: checkoutToken,
      payload: { products: [productId], discount_id: discount.id },
    });
    expect(checkout.statusCode).toBe(422);
    expect(checkout.json().detail[0].loc).toEqual(["body", "discount_id"]);
    const reused = await ctx.request({
      method: "POST",
      url: "/v1/discounts/",
      token,
      payload: { name: "Closing again", code: "closing", type: "percentage", basis_points: 500, duration: "once" },
    });
    expect(reused.statusCode, reused.body).toBe(201);
  });

  it("leaves a checkout holding it discounted: the buyer pays the price shown", async () => {
    const discount = await createDiscount(ctx.deps, orgId, { basis_points: 2000 });
    const session = await openCheckoutThroughApi(ctx, checkoutToken, { products: [productId], discount_id: discount.id });
    expect(session).toMatchObject({ discount_amount: 1000, discount_id: discount.id });
    expect((await ctx.request({ method: "DELETE", url: `/v1/discounts/${discount.id}`, token })).statusCode).toBe(204);
    const confirmed = await ctx.request({
      method: "POST",
      url: `/v1/checkouts/client/${session.client_secret}/confirm`,
      payload: { ...BUYER, customer_email: "held@example.com", confirmation_token_id: "tok_visa" },
    });
    expect(confirmed.statusCode, confirmed.body).toBe(200);
    expect(confirmed.json()).toMatchObject({ discount_id: discount.id, discount_amount: 1000 });
    const settled = (await ctx.request({ method: "GET", url: `/v1/checkouts/${session.id}`, token: checkoutToken })).json();
    expect(settled).toMatchObject({ status: "succeeded", discount_id: discount.id, discount_amount: 1000, net_amount: 4000 });
    const redeemed = await ctx.deps.db
      .selectFrom("discounts")
      .select("redemptions_count")
      .where("id", "=", discount.id)
      .executeTakeFirstOrThrow();
    expect(redeemed.redemptions_count).toBe(1);
  });

  describe("bad input", () => {
    let target: string;
    let before: string;
    beforeAll(async () => {
      target = (await createDiscount(ctx.deps, orgId, { name: "Kept" })).id;
      before = await snapshot();
    });
    const del =
      (id: () => string, as: TokenSource = () => token): BadInputCase["request"] =>
      () => ({ method: "DELETE", url: `/v1/discounts/${id()}`, token: as() });

    badInputTable(
      () => ctx.request,
      [
        { name: "a non-UUID id", request: del(() => "d"), status: 422, loc: ["path", "id"] },
        { name: "an unknown id", request: del(() => UNKNOWN), status: 404, error: "ResourceNotFound" },
        { name: "another organization's discount", request: del(() => foreignId), status: 404, error: "ResourceNotFound" },
        ...tokenRefusals((as) => del(() => target, as), { "a read-only token": () => readToken }),
      ],
      async () => expect(await snapshot()).toBe(before),
    );
  });
});
