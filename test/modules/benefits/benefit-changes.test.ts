import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { badInputTable, getRequest, jsonRequest, paginationRefusals, tokenRefusals } from "../../helpers/bad-inputs.ts";
import type { TestContext } from "../../helpers/context.ts";
import { createOrganization, createOrganizationToken, createProduct, openOrganizationContext } from "../../helpers/factories.ts";
import { expectReferenceResponse } from "../../helpers/reference.ts";
import { buyThroughCheckout } from "../subscriptions/subscription-helpers.ts";
import { LICENSE } from "./grant-fixtures.ts";

// GET /v1/benefits/, PATCH and DELETE /v1/benefits/{id}: the list's filters and sorts, an update's
// reach into the license keys already granted, a deletion revoking every grant and leaving the products.

let ctx: TestContext;
let orgId: string;
let writeToken: string;
let readToken: string;
let checkoutToken: string;
let productsToken: string;
let foreignBenefitId: string;
const UNKNOWN = "3f2b1c4d-1111-4222-8333-123456789abc";

beforeAll(async () => {
  ({
    ctx,
    org: { id: orgId },
    tokens: [writeToken, readToken, checkoutToken, productsToken],
  } = await openOrganizationContext(["benefits:write"], ["benefits:read"], ["checkouts:write"], ["products:read"]));
  const other = await createOrganization(ctx.deps);
  const otherToken = await createOrganizationToken(ctx.deps, other.id, ["benefits:write"]);
  foreignBenefitId = (await create({ type: "custom", description: "Theirs", properties: {}, metadata: { suite: "list" } }, otherToken)).id;
});
afterAll(() => ctx.close());

async function create(payload: Record<string, unknown>, token = writeToken): Promise<{ id: string; [key: string]: unknown }> {
  const response = await ctx.request({ method: "POST", url: "/v1/benefits/", token, payload });
  expect(response.statusCode, response.body).toBe(201);
  return response.json();
}

const list = async (query: string) => {
  const response = await ctx.request({ method: "GET", url: `/v1/benefits/${query}`, token: readToken });
  expect(response.statusCode, response.body).toBe(200);
  expectReferenceResponse("benefits:list", 200, response.json());
  return response.json<{ items: { id: string; description: string; type: string }[]; pagination: unknown }>();
};

const patch = (id: string, payload: Record<string, unknown>, token = writeToken) =>
  ctx.request({ method: "PATCH", url: `/v1/benefits/${id}`, token, payload });

/** The events recorded about one resource (by `data.id`) of a type family, oldest first, with their data. */
async function eventsAbout(prefix: string) {
  const rows = await ctx.deps.db
    .selectFrom("webhook_events")
    .select(["type", "payload"])
    .where("organization_id", "=", orgId)
    .where("type", "like", `${prefix}%`)
    .orderBy("position")
    .execute();
  return rows.map((row) => ({ type: row.type, data: row.payload.data as unknown as Record<string, unknown> }));
}

/** What a refused request must leave as it was: every benefit, grant, license key and webhook event. */
async function snapshot() {
  const [benefits, grants, keys, events] = await Promise.all([
    ctx.deps.db.selectFrom("benefits").selectAll().orderBy("id").execute(),
    ctx.deps.db.selectFrom("benefit_grants").selectAll().orderBy("id").execute(),
    ctx.deps.db.selectFrom("license_keys").selectAll().orderBy("id").execute(),
    ctx.deps.db.selectFrom("webhook_events").select("id").execute(),
  ]);
  return JSON.stringify({ benefits, grants, keys, events: events.length });
}

describe("GET /v1/benefits/", () => {
  const ids: Record<string, string> = {};
  beforeAll(async () => {
    const start = Date.parse("2026-06-01T00:00:00Z");
    const specs = [
      ["Beta support", "custom", { plan: "pro" }],
      ["Alpha key", "license_keys", { plan: "pro" }],
      ["Gamma chat", "custom", { plan: "free" }],
      ["Delta key", "license_keys", { plan: "free" }],
    ] as const;
    for (const [i, [description, type, metadata]] of specs.entries()) {
      ctx.clock.set(new Date(start + i * 1000));
      ids[description] = (await create({ type, description, properties: {}, metadata: { ...metadata, suite: "list" } })).id;
    }
    const gone = await create({ type: "custom", description: "Gone perk", properties: {}, metadata: { suite: "list" } });
    expect((await ctx.request({ method: "DELETE", url: `/v1/benefits/${gone.id}`, token: writeToken })).statusCode).toBe(204);
  });
  const names = (body: { items: { description: string }[] }) => body.items.map((item) => item.description);

  it("lists the organization's live benefits, newest first, a page at a time", async () => {
    const first = await list("?metadata[suite]=list&limit=3");
    expect(first.pagination).toEqual({ total_count: 4, max_page: 2 });
    const second = await list("?metadata[suite]=list&limit=3&page=2");
    expect([...names(first), ...names(second)]).toEqual(["Delta key", "Gamma chat", "Alpha key", "Beta support"]);
  });

  it("filters by type, id, excluded id, description and metadata", async () => {
    expect(names(await list("?metadata[suite]=list&type=license_keys"))).toEqual(["Delta key", "Alpha key"]);
    expect(names(await list(`?id=${ids["Alpha key"]}&id=${ids["Gamma chat"]}`))).toEqual(["Gamma chat", "Alpha key"]);
    expect(names(await list(`?metadata[suite]=list&exclude_id=${ids["Delta key"]}&exclude_id=${ids["Beta support"]}`))).toEqual([
      "Gamma chat",
      "Alpha key",
    ]);
    expect(names(await list("?query=KEY"))).toEqual(["Delta key", "Alpha key"]);
    expect(names(await list("?metadata[plan]=pro&metadata[suite]=list"))).toEqual(["Alpha key", "Beta support"]);
    expect(names(await list(`?organization_id=${orgId}&metadata[plan]=free`))).toEqual(["Delta key", "Gamma chat"]);
    // Another organization's benefit is never listed, even asked for by id.
    expect((await list(`?id=${foreignBenefitId}`)).items).toEqual([]);
  });

  it("sorts by description, type and the order of the ids asked for (user_order)", async () => {
    expect(names(await list("?metadata[suite]=list&sorting=description"))).toEqual([
      "Alpha key",
      "Beta support",
      "Delta key",
      "Gamma chat",
    ]);
    expect(names(await list("?metadata[suite]=list&sorting=-type&sorting=description"))).toEqual([
      "Alpha key",
      "Delta key",
      "Beta support",
      "Gamma chat",
    ]);
    const order = ["Gamma chat", "Alpha key", "Delta key"];
    const query = order.map((name) => `id=${ids[name]}`).join("&");
    expect(names(await list(`?${query}&sorting=user_order`))).toEqual(order);
    expect(names(await list(`?${query}&sorting=-user_order`))).toEqual([...order].reverse());
    // Without ids to follow, the creation order.
    expect(names(await list("?metadata[suite]=list&sorting=user_order"))).toEqual(["Beta support", "Alpha key", "Gamma chat", "Delta key"]);
  });

  const get = getRequest("/v1/benefits/", () => readToken);
  badInputTable(
    () => ctx.request,
    [
      ...paginationRefusals(get),
      { name: "an unknown type", request: get("?type=coupon"), status: 422, loc: ["query", "type", 0] },
      { name: "a non-UUID id", request: get("?id=nope"), status: 422, loc: ["query", "id", 0] },
      { name: "a non-UUID excluded id", request: get("?exclude_id=nope"), status: 422, loc: ["query", "exclude_id", 0] },
      { name: "a non-UUID organization", request: get("?organization_id=nope"), status: 422, loc: ["query", "organization_id", 0] },
      { name: "an overlong query", request: get(`?query=${"q".repeat(257)}`), status: 422, loc: ["query", "query"] },
      { name: "an unknown sorting key", request: get("?sorting=-name"), status: 422, loc: ["query", "sorting", 0] },
      ...tokenRefusals((as) => get("", as), { "a token without a benefits scope": () => productsToken }),
    ],
  );
});

describe("PATCH /v1/benefits/{id}", () => {
  it("changes only the fields sent, and sends benefit.updated", async () => {
    const benefit = await create({ type: "custom", description: "Office hours", properties: { note: "Book a slot" }, metadata: { a: 1 } });
    ctx.clock.advance(60_000);
    const response = await patch(benefit.id, { type: "custom", description: "Office time", metadata: { b: "two" } });
    expect(response.statusCode, response.body).toBe(200);
    const body = response.json();
    expectReferenceResponse("benefits:update", 200, body);
    expect(body).toEqual({
      ...benefit,
      description: "Office time",
      metadata: { b: "two" },
      modified_at: ctx.clock.now().toISOString(),
    });
    const again = await patch(benefit.id, { type: "custom", visibility: "private", properties: { note: null } });
    expect(again.json()).toMatchObject({ description: "Office time", visibility: "private", properties: { note: null } });
    const read = await ctx.request({ method: "GET", url: `/v1/benefits/${benefit.id}`, token: readToken });
    expect(read.json()).toEqual(again.json());
    const updates = (await eventsAbout("benefit.")).filter((event) => event.data.id === benefit.id);
    expect(updates.map((event) => [event.type, event.data.description])).toEqual([
      ["benefit.updated", "Office time"],
      ["benefit.updated", "Office time"],
    ]);
    expect(updates[1]!.data).toEqual(again.json());
  });

  it("gives the license keys already granted the new terms: one-time keys expire from now, a subscription's never", async () => {
    ctx.clock.set(new Date("2026-07-01T00:00:00.000Z"));
    const oneTime = await createProduct(ctx.deps, orgId, { benefits: [LICENSE] });
    const benefitId = (
      await ctx.deps.db
        .selectFrom("product_benefits")
        .select("benefit_id")
        .where("product_id", "=", oneTime.product.id)
        .executeTakeFirstOrThrow()
    ).benefit_id;
    const plan = await createProduct(ctx.deps, orgId, {
      product: { name: "Keyed plan", recurring_interval: "month", recurring_interval_count: 1 },
      prices: [{ amount_type: "fixed", price_amount: 900 }],
    });
    await ctx.deps.db
      .insertInto("product_benefits")
      .values({ organization_id: orgId, product_id: plan.product.id, benefit_id: benefitId, position: 0 })
      .execute();
    await buyThroughCheckout(ctx, checkoutToken, oneTime.product.id, { buyer: { customer_email: "once@example.com" } });
    // A moment later, so the keys' creation order is the purchases' (the list below relies on it).
    ctx.clock.advance(1_000);
    await buyThroughCheckout(ctx, checkoutToken, plan.product.id, { buyer: { customer_email: "monthly@example.com" } });
    const keys = () =>
      ctx.deps.db.selectFrom("license_keys").selectAll().where("benefit_id", "=", benefitId).orderBy("created_at").orderBy("id").execute();
    const before = await keys();
    expect(before).toHaveLength(2);
    const grantEvents = async () =>
      (await eventsAbout("benefit_grant.updated")).filter((event) => (event.data.benefit as { id: string }).id === benefitId);

    // The prefix shapes new keys only: nothing granted changes.
    await patch(benefitId, { type: "license_keys", properties: { prefix: "NEW" } });
    expect(await grantEvents()).toEqual([]);

    ctx.clock.advance(3_600_000);
    const response = await patch(benefitId, {
      type: "license_keys",
      properties: {
        prefix: "NEW",
        expires: { ttl: 10, timeframe: "day" },
        activations: { limit: 2, enable_customer_admin: true },
        limit_usage: 50,
      },
    });
    expect(response.statusCode, response.body).toBe(200);
    const after = await keys();
    const now = ctx.clock.now();
    expect(
      after.map((key) => [key.key, key.limit_activations, key.limit_usage, key.expires_at?.toISOString() ?? null, key.status]),
    ).toEqual([
      [before[0]!.key, 2, 50, new Date(now.getTime() + 10 * 86_400_000).toISOString(), "granted"],
      [before[1]!.key, 2, 50, null, "granted"],
    ]);
    const events = await grantEvents();
    expect(events).toHaveLength(2);
    for (const event of events) expect(event.data.previous_properties).toEqual(event.data.properties);
  });

  describe("refusals", () => {
    let licenseId: string;
    let before: string;
    beforeAll(async () => {
      licenseId = (await create({ ...LICENSE, description: "Refusal key" })).id;
      before = await snapshot();
    });
    const send = jsonRequest("PATCH", "", () => writeToken);
    const at = (id: () => string, payload: unknown, as?: () => string | null) => () => ({
      ...send(payload, as)(),
      url: `/v1/benefits/${id()}`,
    });
    const license = () => licenseId;

    it("refuses another type, naming the benefit's own", async () => {
      const response = await patch(licenseId, { type: "custom", description: "Custom now" });
      expect(response.statusCode).toBe(422);
      expect(response.json().detail).toEqual([
        { loc: ["body", "type"], msg: "Benefit type cannot be changed.", type: "value_error", input: "license_keys" },
      ]);
      expect(await snapshot()).toBe(before);
    });

    badInputTable(
      () => ctx.request,
      [
        { name: "no type", request: at(license, { description: "No type" }), status: 422, loc: ["body", "type"] },
        { name: "an unknown type", request: at(license, { type: "coupon" }), status: 422, loc: ["body", "type"] },
        {
          name: "a two-character description",
          request: at(license, { type: "license_keys", description: "ab" }),
          status: 422,
          loc: ["body", "description"],
        },
        {
          name: "an overlong description",
          request: at(license, { type: "license_keys", description: "d".repeat(43) }),
          status: 422,
          loc: ["body", "description"],
        },
        {
          name: "a zero activation limit",
          request: at(license, { type: "license_keys", properties: { activations: { limit: 0, enable_customer_admin: true } } }),
          status: 422,
          loc: ["body", "properties", "activations", "limit"],
        },
        {
          name: "a visibility unknown",
          request: at(license, { type: "license_keys", visibility: "hidden" }),
          status: 422,
          loc: ["body", "visibility"],
        },
        {
          name: "metadata of the wrong type",
          request: at(license, { type: "license_keys", metadata: "tier" }),
          status: 422,
          loc: ["body", "metadata"],
        },
        { name: "a non-UUID id", request: at(() => "1", { type: "custom" }), status: 422, loc: ["path", "id"] },
        { name: "an unknown id", request: at(() => UNKNOWN, { type: "custom" }), status: 404, error: "ResourceNotFound" },
        {
          name: "another organization's benefit",
          request: at(() => foreignBenefitId, { type: "custom", description: "Mine now" }),
          status: 404,
          error: "ResourceNotFound",
        },
        ...tokenRefusals((as) => at(license, { type: "license_keys", description: "Renamed" }, as), {
          "a read-only token": () => readToken,
          "a token of another feature": () => productsToken,
        }),
      ],
      async () => expect(await snapshot()).toBe(before),
    );

    it("refuses a meter credit on a meter the organization does not have", async () => {
      const meterLess = await ctx.deps.db
        .insertInto("benefits")
        .values({
          organization_id: orgId,
          type: "meter_credit",
          description: "Credits",
          properties: JSON.stringify({ units: 1, rollover: false, meter_id: UNKNOWN }),
          metadata: "{}",
          modified_at: null,
        })
        .returning("id")
        .executeTakeFirstOrThrow();
      const snap = await snapshot();
      const response = await patch(meterLess.id, { type: "meter_credit", properties: { units: 5, rollover: true, meter_id: UNKNOWN } });
      expect(response.statusCode).toBe(422);
      expect(response.json().detail[0]).toMatchObject({ loc: ["body", "properties", "meter_id"], msg: "This meter does not exist." });
      expect(await snapshot()).toBe(snap);
    });
  });
});

describe("DELETE /v1/benefits/{id}", () => {
  it("soft-deletes the benefit, takes it off its products and revokes every grant with its license key", async () => {
    const product = await createProduct(ctx.deps, orgId, { benefits: [{ ...LICENSE, description: "Doomed key" }] });
    const benefitId = (
      await ctx.deps.db
        .selectFrom("product_benefits")
        .select("benefit_id")
        .where("product_id", "=", product.product.id)
        .executeTakeFirstOrThrow()
    ).benefit_id;
    await buyThroughCheckout(ctx, checkoutToken, product.product.id, { buyer: { customer_email: "doomed@example.com" } });
    const eventsBefore = (await eventsAbout("benefit")).length;

    const response = await ctx.request({ method: "DELETE", url: `/v1/benefits/${benefitId}`, token: writeToken });
    expect(response.statusCode, response.body).toBe(204);
    expect(response.body).toBe("");

    expect((await ctx.request({ method: "GET", url: `/v1/benefits/${benefitId}`, token: readToken })).statusCode).toBe(404);
    expect((await ctx.request({ method: "DELETE", url: `/v1/benefits/${benefitId}`, token: writeToken })).statusCode).toBe(404);
    expect(await ctx.deps.db.selectFrom("product_benefits").select("benefit_id").where("benefit_id", "=", benefitId).execute()).toEqual([]);
    const grants = await ctx.deps.db.selectFrom("benefit_grants").selectAll().where("benefit_id", "=", benefitId).execute();
    expect(grants.map((grant) => [grant.granted_at, grant.revoked_at?.toISOString()])).toEqual([[null, ctx.clock.now().toISOString()]]);
    const key = await ctx.deps.db.selectFrom("license_keys").select("status").where("benefit_id", "=", benefitId).executeTakeFirstOrThrow();
    expect(key.status).toBe("revoked");
    const events = (await eventsAbout("benefit")).slice(eventsBefore);
    expect(events.map((event) => event.type).sort()).toEqual(["benefit.updated", "benefit_grant.revoked"]);
    const updated = events.find((event) => event.type === "benefit.updated")!;
    expect(updated.data).toMatchObject({ id: benefitId, is_deleted: true, description: "Doomed key" });
  });

  describe("refusals", () => {
    let keptId: string;
    let before: string;
    beforeAll(async () => {
      keptId = (await create({ type: "custom", description: "Kept perk", properties: {} })).id;
      before = await snapshot();
    });
    const del =
      (id: () => string, as: () => string | null = () => writeToken) =>
      () => ({ method: "DELETE" as const, url: `/v1/benefits/${id()}`, token: as() });

    badInputTable(
      () => ctx.request,
      [
        { name: "a non-UUID id", request: del(() => "x"), status: 422, loc: ["path", "id"] },
        { name: "an unknown id", request: del(() => UNKNOWN), status: 404, error: "ResourceNotFound" },
        { name: "another organization's benefit", request: del(() => foreignBenefitId), status: 404, error: "ResourceNotFound" },
        ...tokenRefusals((as) => del(() => keptId, as), { "a read-only token": () => readToken }),
      ],
      async () => expect(await snapshot()).toBe(before),
    );

    it("answers 403 NotPermitted for a benefit that is not deletable", async () => {
      await ctx.deps.db.updateTable("benefits").set({ deletable: false }).where("id", "=", keptId).execute();
      const snap = await snapshot();
      const response = await ctx.request({ method: "DELETE", url: `/v1/benefits/${keptId}`, token: writeToken });
      expect(response.statusCode).toBe(403);
      expect(response.json().error).toBe("NotPermitted");
      expect(await snapshot()).toBe(snap);
    });
  });
});
