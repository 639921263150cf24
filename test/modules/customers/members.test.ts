import { sql } from "kysely";
import { webhooks } from "@polar-sh/sdk/2026-04";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import type { CustomerRow } from "../../../src/modules/customers/customers.table.ts";
import { badInputTable } from "../../helpers/bad-inputs.ts";
import type { TestContext } from "../../helpers/context.ts";
import {
  createCustomer,
  createOrganization,
  createOrganizationToken,
  createProduct,
  openOrganizationContext,
} from "../../helpers/factories.ts";
import { expectReferenceResponse } from "../../helpers/reference.ts";
import { createWebhookEndpoint, deliveryHarness, fanOutPending } from "../../helpers/webhooks.ts";
import { buyThroughCheckout } from "../subscriptions/subscription-helpers.ts";
import { createMember, enableMembers } from "./member-helpers.ts";

let ctx: TestContext;
let org: { id: string };
let token: string;
let readToken: string;
const UNKNOWN = "3f2b1c4d-1111-4222-8333-123456789abc";

beforeAll(async () => {
  ({
    ctx,
    org,
    tokens: [token, readToken],
  } = await openOrganizationContext(["members:write", "customers:write"], ["members:read"]));
  await enableMembers(ctx.deps, org.id);
});
afterAll(() => ctx.close());
const { engine, receiver, closeReceivers } = deliveryHarness(() => ctx);
afterEach(async () => {
  vi.useRealTimers();
  await closeReceivers();
});

const live = (customerId: string) =>
  ctx.deps.db
    .selectFrom("members")
    .selectAll()
    .where("customer_id", "=", customerId)
    .where("deleted_at", "is", null)
    .orderBy("created_at")
    .execute();
const memberEvents = (memberId: string) =>
  ctx.deps.db
    .selectFrom("webhook_events")
    .select(["type", "payload"])
    .where("organization_id", "=", org.id)
    .where("type", "like", "member.%")
    .where(sql<boolean>`payload @> ${JSON.stringify({ data: { id: memberId } })}::jsonb`)
    .orderBy("created_at")
    .orderBy("id")
    .execute();

async function team(): Promise<CustomerRow> {
  const customer = await createCustomer(ctx.deps, org.id, { type: "team" });
  await createMember(ctx.deps, customer, "owner", { email: customer.email });
  return customer;
}

describe("customer creation with members enabled", () => {
  it("creates the owner from `owner` with the customer, recording member.created in the same transaction", async () => {
    const response = await ctx.request({
      method: "POST",
      url: "/v1/customers/",
      token,
      payload: { type: "team", name: "Acme", owner: { email: "boss@acme.example", name: "Boss", external_id: "usr_boss" } },
    });
    expect(response.statusCode, response.body).toBe(201);
    const customer = response.json();
    expectReferenceResponse("customers:create", 201, customer);
    // No email of its own: the team is reached through its owner's.
    expect(customer).toMatchObject({ type: "team", email: "boss@acme.example" });
    const [owner, ...others] = await live(customer.id);
    expect(others).toEqual([]);
    expect(owner).toMatchObject({ role: "owner", email: "boss@acme.example", name: "Boss", external_id: "usr_boss" });
    const events = await memberEvents(owner!.id);
    expect(events.map((e) => e.type)).toEqual(["member.created"]);
  });

  it("creates an individual customer's owner from the customer's own email, name and external ID", async () => {
    const response = await ctx.request({
      method: "POST",
      url: "/v1/customers/",
      token,
      payload: { email: "solo@example.com", name: "Solo", external_id: "solo_1" },
    });
    expect(response.statusCode, response.body).toBe(201);
    const [owner] = await live(response.json().id);
    expect(owner).toMatchObject({ role: "owner", email: "solo@example.com", name: "Solo", external_id: "solo_1" });
  });

  it("creates no member when the organization has members off", async () => {
    const other = await createOrganization(ctx.deps);
    const otherToken = await createOrganizationToken(ctx.deps, other.id, ["customers:write"]);
    const response = await ctx.request({
      method: "POST",
      url: "/v1/customers/",
      token: otherToken,
      payload: { email: "plain@example.com" },
    });
    expect(response.statusCode).toBe(201);
    expect(await live(response.json().id)).toEqual([]);
  });

  it("answers the anchor's 422 for a team with neither its own email nor an owner's", async () => {
    const response = await ctx.request({ method: "POST", url: "/v1/customers/", token, payload: { type: "team", name: "No one" } });
    expect(response.statusCode).toBe(422);
    expect(response.json().detail[0]).toMatchObject({
      loc: ["body"],
      msg: "Value error, An owner with an email address is required when creating a team customer without an email.",
    });
  });

  it("upgrades an individual to a team but never back", async () => {
    const customer = await createCustomer(ctx.deps, org.id);
    const up = await ctx.request({ method: "PATCH", url: `/v1/customers/${customer.id}`, token, payload: { type: "team" } });
    expect(up.statusCode).toBe(200);
    expect(up.json().type).toBe("team");
    const down = await ctx.request({ method: "PATCH", url: `/v1/customers/${customer.id}`, token, payload: { type: "individual" } });
    expect(down.statusCode).toBe(422);
    expect(down.json().detail[0]).toMatchObject({
      loc: ["body", "type"],
      msg: "Value error, Customer type cannot be downgraded from 'team' to 'individual'.",
    });
  });
});

describe("POST /v1/customers/{id}/members", () => {
  it("adds a member to a team (201, the reference's Member, member.created)", async () => {
    const customer = await team();
    const response = await ctx.request({
      method: "POST",
      url: `/v1/customers/${customer.id}/members`,
      token,
      payload: { email: "Dev@Acme.example", name: "Dev", external_id: "usr_dev", role: "billing_manager" },
    });
    expect(response.statusCode, response.body).toBe(201);
    const member = response.json();
    expectReferenceResponse("customers:members:create", 201, member);
    expect(member).toEqual({
      id: expect.any(String),
      created_at: ctx.clock.now().toISOString(),
      modified_at: null,
      customer_id: customer.id,
      email: "Dev@Acme.example",
      name: "Dev",
      external_id: "usr_dev",
      role: "billing_manager",
    });
    const events = await memberEvents(member.id);
    expect(events).toEqual([{ type: "member.created", payload: { type: "member.created", timestamp: member.created_at, data: member } }]);
  });

  it("defaults the role to member, and returns the existing member for a known email (any case) without an event", async () => {
    const customer = await team();
    const first = await ctx.request({
      method: "POST",
      url: `/v1/customers/${customer.id}/members`,
      token,
      payload: { email: "same@acme.example" },
    });
    expect(first.json().role).toBe("member");
    const again = await ctx.request({
      method: "POST",
      url: `/v1/customers/${customer.id}/members`,
      token,
      payload: { email: "SAME@acme.example", role: "billing_manager" },
    });
    expect(again.statusCode).toBe(201);
    expect(again.json()).toEqual(first.json());
    expect((await memberEvents(first.json().id)).length).toBe(1);
  });

  it("adds through the customer's external ID", async () => {
    const customer = await createCustomer(ctx.deps, org.id, { type: "team", external_id: "team_ext_add" });
    const response = await ctx.request({
      method: "POST",
      url: "/v1/customers/external/team_ext_add/members",
      token,
      payload: { email: "ext@acme.example" },
    });
    expect(response.statusCode, response.body).toBe(201);
    expectReferenceResponse("customers:members:create_external", 201, response.json());
    expect(response.json().customer_id).toBe(customer.id);
  });

  it("refuses a second member on an individual customer with the anchor's 403", async () => {
    const customer = await createCustomer(ctx.deps, org.id);
    await createMember(ctx.deps, customer, "owner", { email: customer.email });
    const response = await ctx.request({
      method: "POST",
      url: `/v1/customers/${customer.id}/members`,
      token,
      payload: { email: "two@example.com" },
    });
    expect(response.statusCode).toBe(403);
    expectReferenceResponse("customers:members:create", 403, response.json());
    expect(response.json()).toEqual({
      error: "NotPermitted",
      detail: "Individual customers can only have one member (the owner). Upgrade to a team customer to add more members.",
    });
    expect(await live(customer.id)).toHaveLength(1);
  });

  it("refuses an organization without members with the anchor's 403", async () => {
    const other = await createOrganization(ctx.deps);
    const otherToken = await createOrganizationToken(ctx.deps, other.id, ["members:write"]);
    const customer = await createCustomer(ctx.deps, other.id, { type: "team" });
    const response = await ctx.request({
      method: "POST",
      url: `/v1/customers/${customer.id}/members`,
      token: otherToken,
      payload: { email: "x@example.com" },
    });
    expect(response.statusCode).toBe(403);
    expect(response.json()).toEqual({ error: "NotPermitted", detail: "Member management is not enabled for this organization" });
    expect(await live(customer.id)).toEqual([]);
  });

  it("lets seat-based pricing enable members too", async () => {
    const other = await createOrganization(ctx.deps);
    await enableMembers(ctx.deps, other.id, "seat_based_pricing_enabled");
    const otherToken = await createOrganizationToken(ctx.deps, other.id, ["members:write"]);
    const customer = await createCustomer(ctx.deps, other.id, { type: "team" });
    const response = await ctx.request({
      method: "POST",
      url: `/v1/customers/${customer.id}/members`,
      token: otherToken,
      payload: { email: "seat@example.com" },
    });
    expect(response.statusCode).toBe(201);
  });

  it("keeps one member per email when the same email is added in parallel", async () => {
    const customer = await team();
    const responses = await Promise.all(
      Array.from({ length: 6 }, () =>
        ctx.request({ method: "POST", url: `/v1/customers/${customer.id}/members`, token, payload: { email: "race@acme.example" } }),
      ),
    );
    expect(responses.map((r) => r.statusCode)).toEqual([201, 201, 201, 201, 201, 201]);
    expect(new Set(responses.map((r) => r.json().id)).size).toBe(1);
    expect((await live(customer.id)).filter((m) => m.email === "race@acme.example")).toHaveLength(1);
  });

  describe("bad input", () => {
    let customer: CustomerRow;
    let foreign: CustomerRow;
    let count: number;
    const members = async () => (await ctx.deps.db.selectFrom("members").select("id").execute()).length;
    beforeAll(async () => {
      customer = await team();
      await createMember(ctx.deps, customer, "member", { external_id: "taken_ext" });
      const other = await createOrganization(ctx.deps);
      await enableMembers(ctx.deps, other.id);
      foreign = await createCustomer(ctx.deps, other.id, { type: "team", external_id: "foreign_team" });
      count = await members();
    });
    const post =
      (payload: unknown, path: () => string = () => `/v1/customers/${customer.id}/members`, as: () => string | null = () => token) =>
      () => ({ method: "POST" as const, url: path(), token: as(), payload: payload as object });

    badInputTable(
      () => ctx.request,
      [
        { name: "a missing email", request: post({ name: "x" }), status: 422, loc: ["body", "email"] },
        { name: "an invalid email", request: post({ email: "not-an-email" }), status: 422, loc: ["body", "email"] },
        { name: "a numeric email", request: post({ email: 42 }), status: 422, loc: ["body", "email"] },
        { name: "an overlong email", request: post({ email: `${"a".repeat(320)}@x.example` }), status: 422, loc: ["body", "email"] },
        { name: "an overlong name", request: post({ email: "n@x.example", name: "n".repeat(257) }), status: 422, loc: ["body", "name"] },
        {
          name: "an overlong external ID",
          request: post({ email: "e@x.example", external_id: "e".repeat(257) }),
          status: 422,
          loc: ["body", "external_id"],
        },
        { name: "the owner role", request: post({ email: "o@x.example", role: "owner" }), status: 422, loc: ["body", "role"] },
        { name: "an unknown role", request: post({ email: "o@x.example", role: "admin" }), status: 422, loc: ["body", "role"] },
        {
          name: "an external ID another member holds",
          request: post({ email: "new@x.example", external_id: "taken_ext" }),
          status: 422,
          loc: ["body", "external_id"],
        },
        {
          name: "a non-UUID customer id",
          request: post({ email: "a@x.example" }, () => "/v1/customers/abc/members"),
          status: 422,
          loc: ["path", "id"],
        },
        {
          name: "an unknown customer",
          request: post({ email: "a@x.example" }, () => `/v1/customers/${UNKNOWN}/members`),
          status: 404,
          error: "ResourceNotFound",
        },
        {
          name: "another organization's customer",
          request: post({ email: "a@x.example" }, () => `/v1/customers/${foreign.id}/members`),
          status: 404,
          error: "ResourceNotFound",
        },
        {
          name: "another organization's external customer ID",
          request: post({ email: "a@x.example" }, () => "/v1/customers/external/foreign_team/members"),
          status: 404,
          error: "ResourceNotFound",
        },
        { name: "no token", request: post({ email: "a@x.example" }, undefined, () => null), status: 401, error: "Unauthorized" },
        {
          name: "a token without members:write",
          request: post({ email: "a@x.example" }, undefined, () => readToken),
          status: 403,
          error: "insufficient_scope",
        },
      ],
      async () => expect(await members()).toBe(count),
    );
  });
});

describe("GET, PATCH and DELETE /v1/customers/{id}/members/{member_id}", () => {
  it("reads a member by ids and by external ids", async () => {
    const customer = await createCustomer(ctx.deps, org.id, { type: "team", external_id: "team_read" });
    const member = await createMember(ctx.deps, customer, "member", { external_id: "usr_read" });
    const byId = await ctx.request({ method: "GET", url: `/v1/customers/${customer.id}/members/${member.id}`, token: readToken });
    expect(byId.statusCode, byId.body).toBe(200);
    expectReferenceResponse("customers:members:get", 200, byId.json());
    expect(byId.json()).toMatchObject({ id: member.id, customer_id: customer.id, role: "member", external_id: "usr_read" });
    const byExternal = await ctx.request({ method: "GET", url: "/v1/customers/external/team_read/members/usr_read", token: readToken });
    expect(byExternal.statusCode).toBe(200);
    expectReferenceResponse("customers:members:get_external", 200, byExternal.json());
    expect(byExternal.json()).toEqual(byId.json());
  });

  it("transfers ownership: the old owner becomes a billing manager, each change sends member.updated", async () => {
    const customer = await team();
    const [owner] = await live(customer.id);
    const member = await createMember(ctx.deps, customer);
    const response = await ctx.request({
      method: "PATCH",
      url: `/v1/customers/${customer.id}/members/${member.id}`,
      token,
      payload: { role: "owner", name: "New Boss" },
    });
    expect(response.statusCode, response.body).toBe(200);
    expectReferenceResponse("customers:members:update", 200, response.json());
    expect(response.json()).toMatchObject({ id: member.id, role: "owner", name: "New Boss", modified_at: ctx.clock.now().toISOString() });
    const roles = Object.fromEntries((await live(customer.id)).map((m) => [m.id, m.role]));
    expect(roles).toEqual({ [owner!.id]: "billing_manager", [member.id]: "owner" });
    expect((await memberEvents(owner!.id)).map((e) => e.type)).toEqual(["member.updated"]);
    expect((await memberEvents(member.id)).map((e) => e.type)).toEqual(["member.updated"]);
  });

  it("sends no member.updated when nothing changes", async () => {
    const customer = await team();
    const member = await createMember(ctx.deps, customer, "member", { name: "Same" });
    const response = await ctx.request({
      method: "PATCH",
      url: `/v1/customers/${customer.id}/members/${member.id}`,
      token,
      payload: { name: "Same", role: "member" },
    });
    expect(response.statusCode).toBe(200);
    expect(response.json().modified_at).toBeNull();
    expect(await memberEvents(member.id)).toEqual([]);
  });

  it("refuses demoting the sole owner with the anchor's 422", async () => {
    const customer = await team();
    const [owner] = await live(customer.id);
    const response = await ctx.request({
      method: "PATCH",
      url: `/v1/customers/${customer.id}/members/${owner!.id}`,
      token,
      payload: { role: "member" },
    });
    expect(response.statusCode).toBe(422);
    expectReferenceResponse("customers:members:update", 422, response.json());
    expect(response.json().detail[0]).toMatchObject({ msg: "Value error, Cannot change role. Customer must have exactly one owner." });
    expect((await live(customer.id))[0]!.role).toBe("owner");
  });

  it("leaves exactly one owner when two ownership transfers race", async () => {
    const customer = await team();
    const a = await createMember(ctx.deps, customer);
    const b = await createMember(ctx.deps, customer);
    const responses = await Promise.all(
      [a, b].map((m) =>
        ctx.request({ method: "PATCH", url: `/v1/customers/${customer.id}/members/${m.id}`, token, payload: { role: "owner" } }),
      ),
    );
    expect(responses.map((r) => r.statusCode)).toEqual([200, 200]);
    expect((await live(customer.id)).filter((m) => m.role === "owner")).toHaveLength(1);
  });

  it("deletes a member (204, member.deleted), after which it is gone", async () => {
    const customer = await createCustomer(ctx.deps, org.id, { type: "team", external_id: "team_del" });
    await createMember(ctx.deps, customer, "owner");
    const member = await createMember(ctx.deps, customer, "member", { external_id: "usr_del" });
    const response = await ctx.request({ method: "DELETE", url: "/v1/customers/external/team_del/members/usr_del", token });
    expect(response.statusCode, response.body).toBe(204);
    expect(response.body).toBe("");
    expect((await memberEvents(member.id)).map((e) => e.type)).toEqual(["member.deleted"]);
    const again = await ctx.request({ method: "GET", url: `/v1/customers/${customer.id}/members/${member.id}`, token });
    expect(again.statusCode).toBe(404);
    expectReferenceResponse("customers:members:get", 404, again.json());
  });

  it("refuses deleting the owner with the anchor's 422 at the body", async () => {
    const customer = await team();
    const [owner] = await live(customer.id);
    const response = await ctx.request({ method: "DELETE", url: `/v1/customers/${customer.id}/members/${owner!.id}`, token });
    expect(response.statusCode).toBe(422);
    expectReferenceResponse("customers:members:delete", 422, response.json());
    expect(response.json().detail[0]).toMatchObject({
      loc: ["body"],
      msg: "Value error, Cannot delete the only owner. Transfer ownership first.",
    });
    expect(await live(customer.id)).toHaveLength(1);
  });

  describe("bad input", () => {
    let customer: CustomerRow;
    let member: { id: string };
    let otherTeamMember: { id: string };
    let foreignCustomer: CustomerRow;
    let foreignMember: { id: string };
    let snapshot: string;
    const state = async () => JSON.stringify(await ctx.deps.db.selectFrom("members").selectAll().orderBy("id").execute());
    beforeAll(async () => {
      customer = await createCustomer(ctx.deps, org.id, { type: "team", external_id: "team_bad" });
      await createMember(ctx.deps, customer, "owner", { email: "owner-bad@example.com" });
      member = await createMember(ctx.deps, customer, "member", { external_id: "usr_bad" });
      otherTeamMember = await createMember(ctx.deps, await team());
      const other = await createOrganization(ctx.deps);
      foreignCustomer = await createCustomer(ctx.deps, other.id, { type: "team" });
      foreignMember = await createMember(ctx.deps, foreignCustomer);
      snapshot = await state();
    });
    const at =
      (method: "GET" | "PATCH" | "DELETE", path: () => string, payload?: unknown, as: () => string | null = () => token) =>
      () => ({
        method,
        url: path(),
        token: as(),
        ...(payload === undefined ? {} : { payload: payload as object }),
      });
    const own = () => `/v1/customers/${customer.id}/members/${member.id}`;

    badInputTable(
      () => ctx.request,
      [
        {
          name: "a non-UUID member id",
          request: at("GET", () => `/v1/customers/${customer.id}/members/abc`),
          status: 422,
          loc: ["path", "member_id"],
        },
        {
          name: "a non-UUID customer id",
          request: at("PATCH", () => `/v1/customers/abc/members/${member.id}`, {}),
          status: 422,
          loc: ["path", "id"],
        },
        {
          name: "an unknown member",
          request: at("GET", () => `/v1/customers/${customer.id}/members/${UNKNOWN}`),
          status: 404,
          error: "ResourceNotFound",
        },
        {
          name: "a member of another customer",
          request: at("PATCH", () => `/v1/customers/${customer.id}/members/${otherTeamMember.id}`, { name: "x" }),
          status: 404,
          error: "ResourceNotFound",
        },
        {
          name: "another organization's member",
          request: at("DELETE", () => `/v1/customers/${foreignCustomer.id}/members/${foreignMember.id}`),
          status: 404,
          error: "ResourceNotFound",
        },
        {
          name: "an unknown member external ID",
          request: at("DELETE", () => "/v1/customers/external/team_bad/members/nobody"),
          status: 404,
          error: "ResourceNotFound",
        },
        {
          name: "an overlong member external ID",
          request: at("GET", () => `/v1/customers/external/team_bad/members/${"x".repeat(257)}`),
          status: 422,
          loc: ["path", "member_external_id"],
        },
        { name: "an invalid email", request: at("PATCH", own, { email: "nope" }), status: 422, loc: ["body", "email"] },
        { name: "an overlong name", request: at("PATCH", own, { name: "n".repeat(257) }), status: 422, loc: ["body", "name"] },
        { name: "an unknown role", request: at("PATCH", own, { role: "admin" }), status: 422, loc: ["body", "role"] },
        { name: "a numeric name", request: at("PATCH", own, { name: 7 }), status: 422, loc: ["body", "name"] },
        { name: "the owner's email", request: at("PATCH", own, { email: "OWNER-bad@example.com" }), status: 422, loc: ["body", "email"] },
        { name: "no token", request: at("GET", own, undefined, () => null), status: 401, error: "Unauthorized" },
        {
          name: "a read token on PATCH",
          request: at("PATCH", own, { name: "x" }, () => readToken),
          status: 403,
          error: "insufficient_scope",
        },
        {
          name: "a read token on DELETE",
          request: at("DELETE", own, undefined, () => readToken),
          status: 403,
          error: "insufficient_scope",
        },
      ],
      async () => expect(await state()).toBe(snapshot),
    );
  });
});

describe("GET /v1/members/", () => {
  let customer: CustomerRow;
  let ids: string[];
  beforeAll(async () => {
    customer = await createCustomer(ctx.deps, org.id, { type: "team", external_id: "team_list" });
    ids = [];
    for (const role of ["owner", "billing_manager", "member", "member"] as const) {
      ctx.clock.advance(1000);
      const row = await createMember(ctx.deps, customer, role);
      await ctx.deps.db.updateTable("members").set({ created_at: ctx.clock.now() }).where("id", "=", row.id).execute();
      ids.push(row.id);
    }
    const deleted = await createMember(ctx.deps, customer);
    await ctx.deps.db.updateTable("members").set({ deleted_at: ctx.clock.now() }).where("id", "=", deleted.id).execute();
    const other = await createOrganization(ctx.deps);
    await createMember(ctx.deps, await createCustomer(ctx.deps, other.id, { type: "team", external_id: "team_list" }));
  });
  const list = (query: string, as: string | null = readToken) => ctx.request({ method: "GET", url: `/v1/members/?${query}`, token: as });

  it("lists a customer's live members newest first, paginated, in the reference's shape", async () => {
    const response = await list(`customer_id=${customer.id}&limit=3`);
    expect(response.statusCode, response.body).toBe(200);
    expectReferenceResponse("members:list_members", 200, response.json());
    expect(response.json().items.map((m: { id: string }) => m.id)).toEqual([ids[3], ids[2], ids[1]]);
    expect(response.json().pagination).toEqual({ total_count: 4, max_page: 2 });
    const second = await list(`customer_id=${customer.id}&limit=3&page=2`);
    expect(second.json().items.map((m: { id: string }) => m.id)).toEqual([ids[0]]);
  });

  it("filters by external customer ID, role, and sorts ascending", async () => {
    const byExternal = await list("external_customer_id=team_list&sorting=created_at");
    expect(byExternal.json().items.map((m: { id: string }) => m.id)).toEqual(ids);
    const owners = await list(`customer_id=${customer.id}&role=owner`);
    expect(owners.json().items.map((m: { id: string }) => m.id)).toEqual([ids[0]]);
  });

  it("never shows another organization's members", async () => {
    const all = await list("limit=100");
    const customers = new Set(all.json().items.map((m: { customer_id: string }) => m.customer_id));
    const foreign = await ctx.deps.db.selectFrom("members").select("customer_id").where("organization_id", "<>", org.id).execute();
    for (const row of foreign) expect(customers.has(row.customer_id)).toBe(false);
  });

  badInputTable(
    () => ctx.request,
    [
      {
        name: "a non-UUID customer_id",
        request: () => ({ method: "GET", url: "/v1/members/?customer_id=abc", token: readToken }),
        status: 422,
        loc: ["query", "customer_id"],
      },
      {
        name: "an unknown role",
        request: () => ({ method: "GET", url: "/v1/members/?role=admin", token: readToken }),
        status: 422,
        loc: ["query", "role"],
      },
      {
        name: "an unknown sorting key",
        request: () => ({ method: "GET", url: "/v1/members/?sorting=email", token: readToken }),
        status: 422,
        loc: ["query", "sorting", 0],
      },
      {
        name: "a zero page",
        request: () => ({ method: "GET", url: "/v1/members/?page=0", token: readToken }),
        status: 422,
        loc: ["query", "page"],
      },
      {
        name: "a non-numeric limit",
        request: () => ({ method: "GET", url: "/v1/members/?limit=x", token: readToken }),
        status: 422,
        loc: ["query", "limit"],
      },
      {
        name: "an overlong external_customer_id",
        request: () => ({ method: "GET", url: `/v1/members/?external_customer_id=${"x".repeat(257)}`, token: readToken }),
        status: 422,
        loc: ["query", "external_customer_id"],
      },
      { name: "no token", request: () => ({ method: "GET", url: "/v1/members/" }), status: 401, error: "Unauthorized" },
    ],
  );

  it("refuses a token without a members scope", async () => {
    const customersOnly = await createOrganizationToken(ctx.deps, org.id, ["customers:read"]);
    const response = await list("", customersOnly);
    expect(response.statusCode).toBe(403);
    expect(response.json().error).toBe("insufficient_scope");
  });
});

describe("member webhooks", () => {
  it("reach an endpoint signed, and the official SDK's validateEvent parses created, updated and deleted", async () => {
    const other = await createOrganization(ctx.deps);
    await enableMembers(ctx.deps, other.id);
    const otherToken = await createOrganizationToken(ctx.deps, other.id, ["members:write"]);
    const hook = await receiver();
    const endpoint = await createWebhookEndpoint(ctx.deps, other.id, {
      url: hook.url,
      events: ["member.created", "member.updated", "member.deleted"],
    });
    const customer = await createCustomer(ctx.deps, other.id, { type: "team" });
    await createMember(ctx.deps, customer, "owner");
    const created = await ctx.request({
      method: "POST",
      url: `/v1/customers/${customer.id}/members`,
      token: otherToken,
      payload: { email: "hooked@team.example", name: "Hooked" },
    });
    const path = `/v1/customers/${customer.id}/members/${created.json().id}`;
    await ctx.request({ method: "PATCH", url: path, token: otherToken, payload: { role: "billing_manager" } });
    await ctx.request({ method: "DELETE", url: path, token: otherToken });

    const delivery = engine();
    await fanOutPending(ctx.deps, delivery);
    await delivery.deliverEndpoint(endpoint.id);
    expect(hook.received).toHaveLength(3);
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(ctx.clock.now());
    const parsed = await Promise.all(hook.received.map((r) => webhooks.validateEvent(r.body, r.headers, endpoint.secret)));
    expect(parsed.map((event) => event.type)).toEqual(["member.created", "member.updated", "member.deleted"]);
    expect(parsed.map((event) => (event.data as { role: string }).role)).toEqual(["member", "billing_manager", "billing_manager"]);
    expect(parsed[0]!.data).toMatchObject({ id: created.json().id, customer_id: customer.id, email: "hooked@team.example" });
  });
});

describe("events naming a member", () => {
  it("accepts a member of the event's customer and refuses another customer's as unknown", async () => {
    const eventsToken = await createOrganizationToken(ctx.deps, org.id, ["events:write"]);
    const customer = await team();
    const member = await createMember(ctx.deps, customer);
    const stranger = await createMember(ctx.deps, await team());
    const ingest = (memberId: string) =>
      ctx.request({
        method: "POST",
        url: "/v1/events/ingest",
        token: eventsToken,
        payload: { events: [{ name: "api.call", customer_id: customer.id, member_id: memberId }] },
      });
    const accepted = await ingest(member.id);
    expect(accepted.statusCode, accepted.body).toBe(200);
    expect(accepted.json()).toEqual({ inserted: 1, duplicates: 0 });
    const refused = await ingest(stranger.id);
    expect(refused.statusCode).toBe(422);
    expect(refused.json().detail[0]).toMatchObject({ msg: "Member not found.", input: stranger.id });
  });
});

describe("a seat-based purchase", () => {
  it("makes the buyer a team customer with its owner; another purchase keeps an existing customer's type", async () => {
    const checkoutToken = await createOrganizationToken(ctx.deps, org.id, ["checkouts:write"]);
    const seats = await createProduct(ctx.deps, org.id, {
      prices: [{ amount_type: "seat_based", seat_tiers: JSON.stringify([{ min_seats: 1, max_seats: null, price_per_seat: 500 }]) }],
    });
    const single = await createProduct(ctx.deps, org.id);
    const buyer = { customer_email: "seats@buyer.example", customer_name: "Seat Buyer" };
    const plain = await buyThroughCheckout(ctx, checkoutToken, single.product.id, { buyer });
    const before = await ctx.deps.db
      .selectFrom("customers")
      .selectAll()
      .where("id", "=", plain.checkout.customer_id)
      .executeTakeFirstOrThrow();
    expect(before.type).toBe("individual");
    const { checkout } = await buyThroughCheckout(ctx, checkoutToken, seats.product.id, { buyer, checkout: { seats: 3 } });
    expect(checkout.customer_id).toBe(plain.checkout.customer_id);
    const after = await ctx.request({ method: "GET", url: `/v1/customers/${checkout.customer_id}`, token });
    expect(after.json().type).toBe("team");
    expect(await live(checkout.customer_id)).toMatchObject([{ role: "owner", email: "seats@buyer.example" }]);
  });
});
