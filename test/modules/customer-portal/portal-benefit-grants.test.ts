import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { badInputTable } from "../../helpers/bad-inputs.ts";
import type { TestContext } from "../../helpers/context.ts";
import {
  createCustomerSessionToken,
  createOrganization,
  createOrganizationToken,
  createProduct,
  openOrganizationContext,
} from "../../helpers/factories.ts";
import { expectReferenceResponse } from "../../helpers/reference.ts";
import { buyGrants } from "../benefits/grant-fixtures.ts";
import { createMember, createMemberSessionToken, enableMembers } from "../customers/member-helpers.ts";
import { buyThroughCheckout } from "../subscriptions/subscription-helpers.ts";

let ctx: TestContext;
let org: { id: string; slug: string };
let checkoutToken: string;
let subscriptionsToken: string;
let bought: Awaited<ReturnType<typeof buyGrants>>;
/** The one-time buyer's session, and the subscriber's. */
let buyer: string;
let subscriber: string;
let grantIds: { license: string; note: string; club: string; hidden: string; discord: string };
let foreignGrantId: string;

interface PortalGrant {
  id: string;
  benefit: { type: string; description: string; organization: { slug: string }; properties: Record<string, unknown> };
  customer: { id: string; email: string };
  properties: Record<string, unknown>;
  order_id: string | null;
  subscription_id: string | null;
  revoked_at: string | null;
}

const grantOf = async (customerId: string, description: string) =>
  (
    await ctx.deps.db
      .selectFrom("benefit_grants as g")
      .innerJoin("benefits as b", "b.id", "g.benefit_id")
      .select("g.id")
      .where("g.customer_id", "=", customerId)
      .where("b.description", "=", description)
      .executeTakeFirstOrThrow()
  ).id;

beforeAll(async () => {
  ({
    ctx,
    org,
    tokens: [checkoutToken, subscriptionsToken],
  } = await openOrganizationContext(["checkouts:write"], ["subscriptions:write"]));
  ctx.clock.set(new Date("2027-02-01T09:00:00.000Z"));
  bought = await buyGrants(ctx, org.id, checkoutToken);
  buyer = await createCustomerSessionToken(ctx.deps, bought.order.customer_id);
  subscriber = await createCustomerSessionToken(ctx.deps, bought.subscription.customer_id);
  // A private benefit and a Discord one (as an integration would store it), bought by the same buyer.
  const extras = await createProduct(ctx.deps, org.id, {
    product: { name: "Extras" },
    benefits: [
      { type: "custom", description: "Staff only", properties: { note: null } },
      { type: "discord", description: "Discord role", properties: { guild_id: "g1", role_id: "r1", kick_member: false, guild_token: "t" } },
    ],
  });
  await ctx.deps.db.updateTable("benefits").set({ visibility: "private" }).where("description", "=", "Staff only").execute();
  await buyThroughCheckout(ctx, checkoutToken, extras.product.id, { buyer: { customer_email: "buyer-once@example.com" } });
  grantIds = {
    license: await grantOf(bought.order.customer_id, "Pro license"),
    note: await grantOf(bought.order.customer_id, "Private chat"),
    club: await grantOf(bought.subscription.customer_id, "Club perks"),
    hidden: await grantOf(bought.order.customer_id, "Staff only"),
    discord: await grantOf(bought.order.customer_id, "Discord role"),
  };
  const other = await createOrganization(ctx.deps);
  const foreign = await buyGrants(ctx, other.id, await createOrganizationToken(ctx.deps, other.id, ["checkouts:write"]), "foreign");
  foreignGrantId = await grantOf(foreign.order.customer_id, "Pro license");
});
afterAll(() => ctx.close());

const url = (id = "") => `/v1/customer-portal/benefit-grants/${id}`;
const list = async (query = "", token = buyer) => {
  const response = await ctx.request({ method: "GET", url: `${url()}${query}`, token });
  expect(response.statusCode, response.body).toBe(200);
  expectReferenceResponse("customer_portal:benefit-grants:list", 200, response.json());
  return response.json<{ items: PortalGrant[]; pagination: { total_count: number } }>();
};
const patch = (id: string, payload: Record<string, unknown>, token = buyer) =>
  ctx.request({ method: "PATCH", url: url(id), token, payload });

describe("/v1/customer-portal/benefit-grants/", () => {
  it("lists the session customer's grants of public benefits, in the product's order, with the seller", async () => {
    const page = await list();
    // Each benefit's place on its own product first (0, 1, 1), then the latest granted.
    expect(page.items.map((grant) => grant.benefit.description)).toEqual(["Pro license", "Discord role", "Private chat"]);
    const [license] = page.items;
    expect(license).toMatchObject({
      id: grantIds.license,
      customer: { id: bought.order.customer_id, email: "buyer-once@example.com" },
      benefit: {
        type: "license_keys",
        organization: { slug: org.slug },
        properties: { prefix: "PRO", expires: null, activations: null, limit_usage: null },
      },
      properties: { license_key_id: expect.any(String), display_key: expect.any(String) },
      subscription_id: null,
    });
    expect(page.items[1]!.benefit.properties).toEqual({ guild_id: "g1" });
    expect((await list("", subscriber)).items.map((grant) => grant.id)).toEqual([grantIds.club]);
  });

  it("filters by description, type, benefit, order, subscription, checkout and member, and sorts", async () => {
    expect((await list("?query=LICENSE")).items.map((grant) => grant.id)).toEqual([grantIds.license]);
    expect((await list("?type=custom&type=discord")).items.map((grant) => grant.id)).toEqual([grantIds.discord, grantIds.note]);
    const license = (await list("?type=license_keys")).items[0]!;
    expect((await list(`?benefit_id=${(license as unknown as { benefit_id: string }).benefit_id}`)).items).toHaveLength(1);
    expect((await list(`?order_id=${license.order_id}`)).items.map((grant) => grant.id)).toEqual([grantIds.license, grantIds.note]);
    expect((await list(`?checkout_id=${bought.order.id}`)).items).toHaveLength(2);
    expect((await list(`?checkout_id=${bought.subscription.id}`, subscriber)).items).toHaveLength(1);
    expect((await list(`?subscription_id=${bought.subscription.subscription_id}`, subscriber)).items).toHaveLength(1);
    expect((await list(`?subscription_id=${bought.subscription.subscription_id}`)).items).toEqual([]);
    // No grant is made for a member.
    expect((await list(`?member_id=${randomUUID()}`)).items).toEqual([]);
    expect((await list("?sorting=-type")).items.map((grant) => grant.benefit.type)).toEqual(["license_keys", "discord", "custom"]);
    expect((await list("?sorting=-product_benefit&sorting=-granted_at")).items[0]!.id).toBe(grantIds.discord);
    expect((await list("?sorting=organization&limit=1&page=3")).items).toHaveLength(1);
  });

  it("reads one grant; another customer's, another organization's and a private benefit's answer 404", async () => {
    const read = await ctx.request({ method: "GET", url: url(grantIds.license), token: buyer });
    expect(read.statusCode, read.body).toBe(200);
    expectReferenceResponse("customer_portal:benefit-grants:get", 200, read.json());
    expect(read.json()).toMatchObject({ id: grantIds.license, is_granted: true });
    for (const [id, token] of [
      [grantIds.club, buyer],
      [grantIds.license, subscriber],
      [foreignGrantId, buyer],
      [grantIds.hidden, buyer],
      [randomUUID(), buyer],
    ] as const) {
      const response = await ctx.request({ method: "GET", url: url(id), token });
      expect(response.statusCode, id).toBe(404);
      expect(response.json().error).toBe("ResourceNotFound");
    }
  });

  it("PATCH with the grant's own type changes nothing and answers the grant", async () => {
    const before = await ctx.deps.db.selectFrom("benefit_grants").selectAll().where("id", "=", grantIds.license).executeTakeFirstOrThrow();
    const response = await patch(grantIds.license, { benefit_type: "license_keys" });
    expect(response.statusCode, response.body).toBe(200);
    expectReferenceResponse("customer_portal:benefit-grants:update", 200, response.json());
    expect(response.json().id).toBe(grantIds.license);
    const after = await ctx.deps.db.selectFrom("benefit_grants").selectAll().where("id", "=", grantIds.license).executeTakeFirstOrThrow();
    expect(after).toEqual(before);
  });

  it("PATCH of a Discord grant: clearing the account merges and records benefit_grant.updated; an unknown account is refused", async () => {
    const unknown = await patch(grantIds.discord, { benefit_type: "discord", properties: { account_id: "12345" } });
    expect(unknown.statusCode).toBe(422);
    expect(unknown.json().detail).toEqual([
      { loc: ["body", "properties", "account_id"], msg: "OAuth account does not exist.", type: "value_error", input: "12345" },
    ]);
    const cleared = await patch(grantIds.discord, { benefit_type: "discord", properties: { account_id: null } });
    expect(cleared.statusCode, cleared.body).toBe(200);
    expect(cleared.json().properties).toEqual({ account_id: null });
    const events = await ctx.deps.db
      .selectFrom("webhook_events")
      .select("payload")
      .where("type", "=", "benefit_grant.updated")
      .where("organization_id", "=", org.id)
      .execute();
    expect(events.map((event) => event.payload.data)).toEqual([
      expect.objectContaining({ id: grantIds.discord, previous_properties: {}, properties: { account_id: null } }),
    ]);
  });

  it("a revoked grant leaves the list, reads back, and refuses an update with 403", async () => {
    const revoke = await ctx.request({
      method: "PATCH",
      url: `/v1/subscriptions/${bought.subscription.subscription_id}`,
      token: subscriptionsToken,
      payload: { revoke: true },
    });
    expect(revoke.statusCode, revoke.body).toBe(200);
    expect((await list("", subscriber)).items).toEqual([]);
    const read = await ctx.request({ method: "GET", url: url(grantIds.club), token: subscriber });
    expect(read.json()).toMatchObject({ is_revoked: true, revoked_at: expect.any(String) });
    const refused = await patch(grantIds.club, { benefit_type: "custom" }, subscriber);
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toEqual({ error: "NotPermitted", detail: "Cannot update a revoked benefit grant." });
  });

  it("a member session, even the owner's, sees only grants made for its member: none yet", async () => {
    await enableMembers(ctx.deps, org.id);
    const customer = { id: bought.order.customer_id, organization_id: org.id };
    const owner = await createMember(ctx.deps, customer, "owner");
    const token = await createMemberSessionToken(ctx.deps, customer.id, owner.id);
    expect((await list("", token)).items).toEqual([]);
    const read = await ctx.request({ method: "GET", url: url(grantIds.license), token });
    expect(read.statusCode).toBe(404);
    expect((await patch(grantIds.license, { benefit_type: "license_keys" }, token)).statusCode).toBe(404);
  });

  const unchanged = async () => {
    const rows = await ctx.deps.db
      .selectFrom("benefit_grants")
      .select(["id", "properties", "modified_at"])
      .where("id", "=", grantIds.note)
      .execute();
    expect(rows).toEqual([{ id: grantIds.note, properties: {}, modified_at: null }]);
  };
  badInputTable(
    () => ctx.request,
    [
      {
        name: "a benefit_type other than the grant's",
        request: () => ({ method: "PATCH", url: url(grantIds.note), token: buyer, payload: { benefit_type: "license_keys" } }),
        status: 422,
        loc: ["body", "benefit_type"],
      },
      {
        name: "an unknown benefit_type",
        request: () => ({ method: "PATCH", url: url(grantIds.note), token: buyer, payload: { benefit_type: "gold" } }),
        status: 422,
      },
      { name: "no body fields", request: () => ({ method: "PATCH", url: url(grantIds.note), token: buyer, payload: {} }), status: 422 },
      {
        name: "a non-string benefit_type",
        request: () => ({ method: "PATCH", url: url(grantIds.note), token: buyer, payload: { benefit_type: 7 } }),
        status: 422,
      },
      {
        name: "an overlong account_id",
        request: () => ({
          method: "PATCH",
          url: url(grantIds.note),
          token: buyer,
          payload: { benefit_type: "discord", properties: { account_id: "x".repeat(300) } },
        }),
        status: 422,
      },
      {
        name: "a non-UUID id",
        request: () => ({ method: "PATCH", url: url("nope"), token: buyer, payload: { benefit_type: "custom" } }),
        status: 422,
        loc: ["path", "id"],
      },
      {
        name: "another customer's grant",
        request: () => ({ method: "PATCH", url: url(grantIds.note), token: subscriber, payload: { benefit_type: "custom" } }),
        status: 404,
        error: "ResourceNotFound",
      },
      {
        name: "another organization's grant",
        request: () => ({ method: "PATCH", url: url(foreignGrantId), token: buyer, payload: { benefit_type: "license_keys" } }),
        status: 404,
        error: "ResourceNotFound",
      },
      {
        name: "no token",
        request: () => ({ method: "PATCH", url: url(grantIds.note), token: null, payload: { benefit_type: "custom" } }),
        status: 401,
      },
      {
        name: "an organization token",
        request: () => ({ method: "PATCH", url: url(grantIds.note), token: checkoutToken, payload: { benefit_type: "custom" } }),
        status: 401,
      },
      { name: "a non-UUID id on read", request: () => ({ method: "GET", url: url("1"), token: buyer }), status: 422 },
      { name: "an unknown type filter", request: () => ({ method: "GET", url: `${url()}?type=gold`, token: buyer }), status: 422 },
      { name: "a non-UUID order_id filter", request: () => ({ method: "GET", url: `${url()}?order_id=x`, token: buyer }), status: 422 },
      { name: "an unknown sort key", request: () => ({ method: "GET", url: `${url()}?sorting=created_at`, token: buyer }), status: 422 },
      {
        name: "an overlong query",
        request: () => ({ method: "GET", url: `${url()}?query=${"q".repeat(300)}`, token: buyer }),
        status: 422,
      },
      { name: "a list without a session", request: () => ({ method: "GET", url: url(), token: null }), status: 401 },
    ],
    unchanged,
  );
});
