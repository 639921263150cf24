import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CustomerRow } from "../../../src/modules/customers/customers.table.ts";
import type { MemberRow } from "../../../src/modules/customers/members.table.ts";
import { badInputTable } from "../../helpers/bad-inputs.ts";
import { createTestContext, type TestContext } from "../../helpers/context.ts";
import { createCustomer, createCustomerSessionToken, createOrganization, createOrganizationToken } from "../../helpers/factories.ts";
import { expectReferenceResponse } from "../../helpers/reference.ts";
import { createMember, createMemberSessionToken, enableMembers } from "../customers/member-helpers.ts";

let ctx: TestContext;
let orgId: string;
const UNKNOWN = "3f2b1c4d-1111-4222-8333-123456789abc";
const URL = "/v1/customer-portal/members";

beforeAll(async () => {
  ctx = await createTestContext();
  orgId = (await createOrganization(ctx.deps)).id;
  await enableMembers(ctx.deps, orgId);
});
afterAll(() => ctx.close());

interface Team {
  customer: CustomerRow;
  owner: MemberRow;
  billing: MemberRow;
  plain: MemberRow;
  as: Record<"owner" | "billing" | "plain", string>;
}

/** A team customer with an owner, a billing manager and a member, each with a session. */
async function team(): Promise<Team> {
  const customer = await createCustomer(ctx.deps, orgId, { type: "team" });
  const owner = await createMember(ctx.deps, customer, "owner");
  const billing = await createMember(ctx.deps, customer, "billing_manager");
  const plain = await createMember(ctx.deps, customer, "member");
  const session = (m: MemberRow) => createMemberSessionToken(ctx.deps, customer.id, m.id);
  return {
    customer,
    owner,
    billing,
    plain,
    as: { owner: await session(owner), billing: await session(billing), plain: await session(plain) },
  };
}

const live = (customerId: string) =>
  ctx.deps.db.selectFrom("members").selectAll().where("customer_id", "=", customerId).where("deleted_at", "is", null).execute();
const events = (memberId: string) =>
  ctx.deps.db
    .selectFrom("webhook_events")
    .select("type")
    .where("type", "like", "member.%")
    .where(sql<boolean>`payload @> ${JSON.stringify({ data: { id: memberId } })}::jsonb`)
    .orderBy("created_at")
    .execute()
    .then((rows) => rows.map((r) => r.type));

describe("GET /v1/customer-portal/members", () => {
  it("lists the team, oldest first, for owners and billing managers", async () => {
    const t = await team();
    for (const as of [t.as.owner, t.as.billing]) {
      const response = await ctx.request({ method: "GET", url: `${URL}?limit=2`, token: as });
      expect(response.statusCode, response.body).toBe(200);
      expectReferenceResponse("customer_portal:members:list_members", 200, response.json());
      expect(response.json()).toEqual({
        items: [t.owner, t.billing].map((m) => ({
          id: m.id,
          created_at: m.created_at.toISOString(),
          modified_at: null,
          email: m.email,
          name: m.name,
          role: m.role,
        })),
        pagination: { total_count: 3, max_page: 2 },
      });
    }
  });
});

describe("POST /v1/customer-portal/members", () => {
  it("adds a member (201, member.created); an email already in the team returns that member", async () => {
    const t = await team();
    const response = await ctx.request({
      method: "POST",
      url: URL,
      token: t.as.billing,
      payload: { email: "new@team.example", name: "New" },
    });
    expect(response.statusCode, response.body).toBe(201);
    expectReferenceResponse("customer_portal:members:add_member", 201, response.json());
    expect(response.json()).toMatchObject({ email: "new@team.example", name: "New", role: "member", modified_at: null });
    expect(await events(response.json().id)).toEqual(["member.created"]);
    const again = await ctx.request({ method: "POST", url: URL, token: t.as.owner, payload: { email: t.plain.email.toUpperCase() } });
    expect(again.statusCode).toBe(201);
    expect(again.json().id).toBe(t.plain.id);
    expect(await live(t.customer.id)).toHaveLength(4);
  });
});

describe("PATCH /v1/customer-portal/members/{id}", () => {
  it("renames and changes another member's role", async () => {
    const t = await team();
    const response = await ctx.request({
      method: "PATCH",
      url: `${URL}/${t.plain.id}`,
      token: t.as.billing,
      payload: { name: "Promoted", role: "billing_manager" },
    });
    expect(response.statusCode, response.body).toBe(200);
    expectReferenceResponse("customer_portal:members:update_member", 200, response.json());
    expect(response.json()).toMatchObject({ id: t.plain.id, name: "Promoted", role: "billing_manager" });
    expect(await events(t.plain.id)).toEqual(["member.updated"]);
  });

  it("lets the owner hand ownership over, the owner becoming a billing manager", async () => {
    const t = await team();
    const response = await ctx.request({ method: "PATCH", url: `${URL}/${t.plain.id}`, token: t.as.owner, payload: { role: "owner" } });
    expect(response.statusCode, response.body).toBe(200);
    const roles = Object.fromEntries((await live(t.customer.id)).map((m) => [m.id, m.role]));
    expect(roles).toEqual({ [t.owner.id]: "billing_manager", [t.billing.id]: "billing_manager", [t.plain.id]: "owner" });
  });

  it("lets a member rename themself without touching their role", async () => {
    const t = await team();
    const response = await ctx.request({ method: "PATCH", url: `${URL}/${t.billing.id}`, token: t.as.billing, payload: { name: "Me" } });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({ name: "Me", role: "billing_manager" });
  });
});

describe("DELETE /v1/customer-portal/members/{id}", () => {
  it("removes another member (204, member.deleted); its sessions stop working", async () => {
    const t = await team();
    const response = await ctx.request({ method: "DELETE", url: `${URL}/${t.plain.id}`, token: t.as.owner });
    expect(response.statusCode, response.body).toBe(204);
    expect(await events(t.plain.id)).toEqual(["member.deleted"]);
    expect((await ctx.request({ method: "GET", url: "/v1/customer-portal/customers/me", token: t.as.plain })).statusCode).toBe(401);
  });
});

describe("the portal team rules", () => {
  let t: Team;
  let other: Team;
  let individualSession: string;
  let customerSession: string;
  let portalScopedToken: string;
  let snapshot: string;
  const state = async () => JSON.stringify(await ctx.deps.db.selectFrom("members").selectAll().orderBy("id").execute());
  beforeAll(async () => {
    t = await team();
    other = await team();
    const individual = await createCustomer(ctx.deps, orgId);
    const soloOwner = await createMember(ctx.deps, individual, "owner");
    individualSession = await createMemberSessionToken(ctx.deps, individual.id, soloOwner.id);
    const plainOrg = (await createOrganization(ctx.deps)).id;
    customerSession = await createCustomerSessionToken(ctx.deps, (await createCustomer(ctx.deps, plainOrg)).id);
    portalScopedToken = await createOrganizationToken(ctx.deps, orgId, ["customer_portal:write"]);
    snapshot = await state();
  });
  const req = (method: "GET" | "POST" | "PATCH" | "DELETE", path: () => string, as: () => string | null, payload?: () => object) => () => ({
    method,
    url: path(),
    token: as(),
    ...(payload ? { payload: payload() } : {}),
  });

  badInputTable(
    () => ctx.request,
    [
      {
        name: "a customer session",
        request: req(
          "GET",
          () => URL,
          () => customerSession,
        ),
        status: 401,
        error: "Unauthorized",
      },
      {
        name: "no token",
        request: req(
          "POST",
          () => URL,
          () => null,
          () => ({ email: "a@x.example" }),
        ),
        status: 401,
        error: "Unauthorized",
      },
      {
        name: "the instance owner's token",
        request: req(
          "GET",
          () => URL,
          () => ctx.ownerToken,
        ),
        status: 401,
        error: "Unauthorized",
      },
      {
        name: "an organization token with the portal scope",
        request: req(
          "GET",
          () => URL,
          () => portalScopedToken,
        ),
        status: 401,
        error: "Unauthorized",
      },
      {
        name: "a plain member listing",
        request: req(
          "GET",
          () => URL,
          () => t.as.plain,
        ),
        status: 403,
        error: "NotPermitted",
      },
      {
        name: "a plain member adding",
        request: req(
          "POST",
          () => URL,
          () => t.as.plain,
          () => ({ email: "a@x.example" }),
        ),
        status: 403,
        error: "NotPermitted",
      },
      {
        name: "a plain member removing",
        request: req(
          "DELETE",
          () => `${URL}/${t.billing.id}`,
          () => t.as.plain,
        ),
        status: 403,
        error: "NotPermitted",
      },
      {
        name: "an individual customer's owner",
        request: req(
          "GET",
          () => URL,
          () => individualSession,
        ),
        status: 403,
        error: "NotPermitted",
      },
      {
        name: "adding an owner",
        request: req(
          "POST",
          () => URL,
          () => t.as.owner,
          () => ({ email: "o@x.example", role: "owner" }),
        ),
        status: 422,
        loc: ["body", "role"],
      },
      {
        name: "an invalid email",
        request: req(
          "POST",
          () => URL,
          () => t.as.owner,
          () => ({ email: "nope" }),
        ),
        status: 422,
        loc: ["body", "email"],
      },
      {
        name: "a missing email",
        request: req(
          "POST",
          () => URL,
          () => t.as.owner,
          () => ({ name: "x" }),
        ),
        status: 422,
        loc: ["body", "email"],
      },
      {
        name: "an overlong name",
        request: req(
          "POST",
          () => URL,
          () => t.as.owner,
          () => ({ email: "l@x.example", name: "n".repeat(257) }),
        ),
        status: 422,
        loc: ["body", "name"],
      },
      {
        name: "an unknown role",
        request: req(
          "PATCH",
          () => `${URL}/${t.plain.id}`,
          () => t.as.owner,
          () => ({ role: "admin" }),
        ),
        status: 422,
        loc: ["body", "role"],
      },
      {
        name: "changing one's own role",
        request: req(
          "PATCH",
          () => `${URL}/${t.billing.id}`,
          () => t.as.billing,
          () => ({ role: "member" }),
        ),
        status: 422,
        loc: ["path", "id"],
      },
      {
        name: "a billing manager handing ownership over",
        request: req(
          "PATCH",
          () => `${URL}/${t.plain.id}`,
          () => t.as.billing,
          () => ({ role: "owner" }),
        ),
        status: 422,
        loc: ["body", "role"],
      },
      {
        name: "demoting the owner",
        request: req(
          "PATCH",
          () => `${URL}/${t.owner.id}`,
          () => t.as.billing,
          () => ({ role: "member" }),
        ),
        status: 422,
        loc: ["body", "role"],
      },
      {
        name: "removing oneself",
        request: req(
          "DELETE",
          () => `${URL}/${t.billing.id}`,
          () => t.as.billing,
        ),
        status: 422,
        loc: ["path", "id"],
      },
      {
        name: "removing the owner",
        request: req(
          "DELETE",
          () => `${URL}/${t.owner.id}`,
          () => t.as.billing,
        ),
        status: 422,
        loc: ["body"],
      },
      {
        name: "a non-UUID id",
        request: req(
          "PATCH",
          () => `${URL}/abc`,
          () => t.as.owner,
          () => ({ name: "x" }),
        ),
        status: 422,
        loc: ["path", "id"],
      },
      {
        name: "an unknown member",
        request: req(
          "DELETE",
          () => `${URL}/${UNKNOWN}`,
          () => t.as.owner,
        ),
        status: 404,
        error: "ResourceNotFound",
      },
      {
        name: "a member of another team",
        request: req(
          "PATCH",
          () => `${URL}/${other.plain.id}`,
          () => t.as.owner,
          () => ({ name: "Hijacked" }),
        ),
        status: 404,
        error: "ResourceNotFound",
      },
      {
        name: "another team's owner session removing this team's member",
        request: req(
          "DELETE",
          () => `${URL}/${t.plain.id}`,
          () => other.as.owner,
        ),
        status: 404,
        error: "ResourceNotFound",
      },
    ],
    async () => expect(await state()).toBe(snapshot),
  );

  it("answers with the anchor's messages", async () => {
    const role = await ctx.request({ method: "GET", url: URL, token: t.as.plain });
    expect(role.json()).toEqual({ error: "NotPermitted", detail: "Insufficient role for this operation" });
    const individual = await ctx.request({ method: "GET", url: URL, token: individualSession });
    expect(individual.json()).toEqual({
      error: "NotPermitted",
      detail: "Member management is only available for team customers. Purchase a seat-based product to enable team features.",
    });
    const self = await ctx.request({ method: "DELETE", url: `${URL}/${t.billing.id}`, token: t.as.billing });
    expectReferenceResponse("customer_portal:members:remove_member", 422, self.json());
    expect(self.json().detail[0].msg).toBe("Value error, You cannot remove yourself from the team.");
    const own = await ctx.request({ method: "PATCH", url: `${URL}/${t.billing.id}`, token: t.as.billing, payload: { role: "member" } });
    expect(own.json().detail[0].msg).toBe("Value error, You cannot modify your own role.");
    const transfer = await ctx.request({ method: "PATCH", url: `${URL}/${t.plain.id}`, token: t.as.billing, payload: { role: "owner" } });
    expect(transfer.json().detail[0].msg).toBe("Value error, Only the owner can transfer ownership.");
  });
});
