import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { badInputTable } from "../../helpers/bad-inputs.ts";
import type { TestContext } from "../../helpers/context.ts";
import { createOrganization, createOrganizationToken, openOrganizationContext } from "../../helpers/factories.ts";
import { expectReferenceResponse } from "../../helpers/reference.ts";
import { buyGrants } from "./grant-fixtures.ts";

let ctx: TestContext;
let orgId: string;
let readToken: string;
let writeToken: string;
let productsToken: string;
let bought: Awaited<ReturnType<typeof buyGrants>>;
let foreignCustomerId: string;
let foreignBenefitId: string;

interface Grant {
  id: string;
  customer_id: string;
  benefit: { type: string; description: string };
  is_granted: boolean;
  created_at: string;
  granted_at: string | null;
  revoked_at: string | null;
  properties: Record<string, unknown>;
}

beforeAll(async () => {
  let checkoutToken: string;
  ({
    ctx,
    org: { id: orgId },
    tokens: [readToken, writeToken, checkoutToken, productsToken],
  } = await openOrganizationContext(["benefits:read"], ["benefits:write", "subscriptions:write"], ["checkouts:write"], ["products:read"]));
  ctx.clock.set(new Date("2027-01-05T10:00:00.000Z"));
  bought = await buyGrants(ctx, orgId, checkoutToken);
  await ctx.deps.db.updateTable("customers").set({ external_id: "ext-once" }).where("id", "=", bought.order.customer_id).execute();
  // The subscription ends: its grant is revoked.
  const revoked = await ctx.request({
    method: "PATCH",
    url: `/v1/subscriptions/${bought.subscription.subscription_id}`,
    token: writeToken,
    payload: { revoke: true },
  });
  expect(revoked.statusCode, revoked.body).toBe(200);
  const other = await createOrganization(ctx.deps);
  const otherCheckouts = await createOrganizationToken(ctx.deps, other.id, ["checkouts:write"]);
  foreignCustomerId = (await buyGrants(ctx, other.id, otherCheckouts, "foreign")).order.customer_id;
  foreignBenefitId = (
    await ctx.deps.db.selectFrom("benefits").select("id").where("organization_id", "=", other.id).executeTakeFirstOrThrow()
  ).id;
});
afterAll(() => ctx.close());

const list = async (query = "", token = readToken) => {
  const response = await ctx.request({ method: "GET", url: `/v1/benefit-grants/${query}`, token });
  expect(response.statusCode, response.body).toBe(200);
  expectReferenceResponse("benefit-grants:list", 200, response.json());
  return response.json<{ items: Grant[]; pagination: { total_count: number; max_page: number } }>();
};

describe("GET /v1/benefit-grants/", () => {
  it("lists the organization's grants, newest first, each with its customer and benefit", async () => {
    const page = await list();
    expect(page.pagination).toEqual({ total_count: 3, max_page: 1 });
    expect(page.items.map((grant) => [grant.customer_id, grant.benefit.description])).toEqual([
      [bought.subscription.customer_id, "Club perks"],
      [bought.order.customer_id, expect.any(String)],
      [bought.order.customer_id, expect.any(String)],
    ]);
    const license = page.items.find((grant) => grant.benefit.type === "license_keys")!;
    expect(license).toMatchObject({
      is_granted: true,
      is_revoked: false,
      granted_at: "2027-01-05T10:00:00.000Z",
      revoked_at: null,
      subscription_id: null,
      order_id: expect.any(String),
      member_id: null,
      error: null,
      customer: { id: bought.order.customer_id, email: "buyer-once@example.com", external_id: "ext-once" },
      benefit: { type: "license_keys", properties: { prefix: "PRO" } },
      properties: { license_key_id: expect.any(String), display_key: expect.stringMatching(/^\*\*\*\*-/) },
    });
    // The ended subscription's grant is revoked, as it ended.
    expect(page.items[0]).toMatchObject({ is_granted: false, is_revoked: true, granted_at: null, revoked_at: "2027-01-05T10:02:00.000Z" });
  });

  it("filters by customer, external customer id, organization and granted state", async () => {
    const byCustomer = await list(`?customer_id=${bought.subscription.customer_id}`);
    expect(byCustomer.items.map((grant) => grant.benefit.description)).toEqual(["Club perks"]);
    expect((await list("?external_customer_id=ext-once")).pagination.total_count).toBe(2);
    expect((await list("?external_customer_id=nobody")).items).toEqual([]);
    expect((await list(`?organization_id=${orgId}`)).pagination.total_count).toBe(3);
    const granted = await list("?is_granted=true");
    expect(granted.items.every((grant) => grant.is_granted)).toBe(true);
    expect(granted.pagination.total_count).toBe(2);
    const revoked = await list("?is_granted=false");
    expect(revoked.items.map((grant) => grant.revoked_at)).toEqual(["2027-01-05T10:02:00.000Z"]);
    // Two values of one filter are OR'd.
    const both = await list(`?customer_id=${bought.subscription.customer_id}&customer_id=${bought.order.customer_id}`);
    expect(both.pagination.total_count).toBe(3);
  });

  it("never shows another organization's grants, even asked by its customer or organization id", async () => {
    expect((await list(`?customer_id=${foreignCustomerId}`)).items).toEqual([]);
    const foreignOrg = (
      await ctx.deps.db.selectFrom("customers").select("organization_id").where("id", "=", foreignCustomerId).executeTakeFirstOrThrow()
    ).organization_id;
    expect((await list(`?organization_id=${foreignOrg}`)).items).toEqual([]);
  });

  it("sorts by created_at, granted_at and revoked_at either way, and pages", async () => {
    const oldest = await list("?sorting=created_at");
    expect(oldest.items.at(-1)!.benefit.description).toBe("Club perks");
    // PostgreSQL places nulls last ascending: the revoked grant has no granted_at.
    expect((await list("?sorting=granted_at")).items.at(-1)!.is_granted).toBe(false);
    expect((await list("?sorting=-revoked_at")).items[0]!.is_granted).toBe(true);
    expect((await list("?sorting=revoked_at")).items[0]!.is_granted).toBe(false);
    const first = await list("?sorting=created_at&limit=2");
    const second = await list("?sorting=created_at&limit=2&page=2");
    expect(first.pagination).toEqual({ total_count: 3, max_page: 2 });
    expect(second.items).toHaveLength(1);
    expect(new Set([...first.items, ...second.items].map((grant) => grant.id)).size).toBe(3);
    // benefits:write reads too.
    expect((await list("", writeToken)).pagination.total_count).toBe(3);
  });

  badInputTable(
    () => ctx.request,
    [
      {
        name: "a non-UUID customer_id",
        request: () => ({ method: "GET", url: "/v1/benefit-grants/?customer_id=nope", token: readToken }),
        status: 422,
        loc: ["query", "customer_id"],
      },
      {
        name: "a non-UUID organization_id",
        request: () => ({ method: "GET", url: "/v1/benefit-grants/?organization_id=1", token: readToken }),
        status: 422,
      },
      {
        name: "a non-boolean is_granted",
        request: () => ({ method: "GET", url: "/v1/benefit-grants/?is_granted=maybe", token: readToken }),
        status: 422,
        loc: ["query", "is_granted"],
      },
      {
        name: "an unknown sort key",
        request: () => ({ method: "GET", url: "/v1/benefit-grants/?sorting=customer", token: readToken }),
        status: 422,
      },
      {
        name: "page 0",
        request: () => ({ method: "GET", url: "/v1/benefit-grants/?page=0", token: readToken }),
        status: 422,
        loc: ["query", "page"],
      },
      {
        name: "limit -1",
        request: () => ({ method: "GET", url: "/v1/benefit-grants/?limit=-1", token: readToken }),
        status: 422,
        loc: ["query", "limit"],
      },
      {
        name: "an overlong external_customer_id",
        request: () => ({ method: "GET", url: `/v1/benefit-grants/?external_customer_id=${"x".repeat(300)}`, token: readToken }),
        status: 422,
      },
      { name: "no token", request: () => ({ method: "GET", url: "/v1/benefit-grants/", token: null }), status: 401 },
      {
        name: "a token without a benefits scope",
        request: () => ({ method: "GET", url: "/v1/benefit-grants/", token: productsToken }),
        status: 403,
      },
      { name: "a malformed token", request: () => ({ method: "GET", url: "/v1/benefit-grants/", token: "polar_oat_nope" }), status: 401 },
    ],
  );
});

describe("GET /v1/benefits/{id}/grants", () => {
  const grantsOf = (id: string, query = "", token: string | null = readToken) =>
    ctx.request({ method: "GET", url: `/v1/benefits/${id}/grants${query}`, token });
  const benefitIdOf = async (description: string) =>
    (
      await ctx.deps.db
        .selectFrom("benefits")
        .select("id")
        .where("organization_id", "=", orgId)
        .where("description", "=", description)
        .executeTakeFirstOrThrow()
    ).id;

  it("lists one benefit's grants, filtered by granted state, customer and member", async () => {
    const club = await benefitIdOf("Club perks");
    const response = await grantsOf(club);
    expect(response.statusCode, response.body).toBe(200);
    expectReferenceResponse("benefits:grants", 200, response.json());
    expect(response.json().items.map((grant: Grant) => [grant.customer_id, grant.is_granted])).toEqual([
      [bought.subscription.customer_id, false],
    ]);
    expect((await grantsOf(club, "?is_granted=true")).json().items).toEqual([]);
    expect((await grantsOf(club, `?customer_id=${bought.order.customer_id}`)).json().items).toEqual([]);
    expect((await grantsOf(club, `?member_id=${bought.order.customer_id}`)).json().items).toEqual([]);
    const license = await grantsOf(await benefitIdOf("Pro license"), "", writeToken);
    expect(license.json().items.map((grant: Grant) => grant.customer_id)).toEqual([bought.order.customer_id]);
  });

  badInputTable(
    () => ctx.request,
    [
      {
        name: "a non-UUID benefit id",
        request: () => ({ method: "GET", url: "/v1/benefits/nope/grants", token: readToken }),
        status: 422,
        loc: ["path", "id"],
      },
      {
        name: "an unknown benefit",
        request: () => ({ method: "GET", url: `/v1/benefits/${crypto.randomUUID()}/grants`, token: readToken }),
        status: 404,
        error: "ResourceNotFound",
      },
      {
        name: "another organization's benefit",
        request: () => ({ method: "GET", url: `/v1/benefits/${foreignBenefitId}/grants`, token: readToken }),
        status: 404,
        error: "ResourceNotFound",
      },
      {
        name: "a non-boolean is_granted",
        request: () => ({ method: "GET", url: `/v1/benefits/${foreignBenefitId}/grants?is_granted=2`, token: readToken }),
        status: 422,
      },
      {
        name: "a non-UUID customer_id",
        request: () => ({ method: "GET", url: `/v1/benefits/${foreignBenefitId}/grants?customer_id=x`, token: readToken }),
        status: 422,
      },
      { name: "no token", request: () => ({ method: "GET", url: `/v1/benefits/${foreignBenefitId}/grants`, token: null }), status: 401 },
      {
        name: "a token without a benefits scope",
        request: () => ({ method: "GET", url: `/v1/benefits/${foreignBenefitId}/grants`, token: productsToken }),
        status: 403,
      },
    ],
  );
});
