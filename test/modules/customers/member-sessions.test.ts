import { sql } from "kysely";
import { createHmac } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TokenPrefix, generateToken, hashToken } from "../../../src/values/tokens.ts";
import { insertCustomerSession } from "../../../src/modules/customers/customer-sessions.repository.ts";
import type { CustomerRow } from "../../../src/modules/customers/customers.table.ts";
import type { MemberRow } from "../../../src/modules/customers/members.table.ts";
import { badInputTable } from "../../helpers/bad-inputs.ts";
import type { TestContext } from "../../helpers/context.ts";
import {
  createCustomer,
  createLicenseKey,
  createOrder,
  createOrganization,
  createOrganizationToken,
  createSubscription,
  openOrganizationContext,
} from "../../helpers/factories.ts";
import { expectReferenceResponse } from "../../helpers/reference.ts";
import { createMember, createMemberSessionToken, enableMembers } from "./member-helpers.ts";

let ctx: TestContext;
let org: { id: string; slug: string };
let token: string;
let acme: CustomerRow;
let owner: MemberRow;
let billing: MemberRow;
let plain: MemberRow;
let outsider: CustomerRow;
let outsiderMember: MemberRow;
const UNKNOWN = "3f2b1c4d-1111-4222-8333-123456789abc";

beforeAll(async () => {
  ({
    ctx,
    org,
    tokens: [token],
  } = await openOrganizationContext(["customer_sessions:write"]));
  await enableMembers(ctx.deps, org.id);
  acme = await createCustomer(ctx.deps, org.id, { type: "team", email: "billing@acme.example", external_id: "acme" });
  owner = await createMember(ctx.deps, acme, "owner", { email: "boss@acme.example" });
  billing = await createMember(ctx.deps, acme, "billing_manager", { email: "money@acme.example" });
  plain = await createMember(ctx.deps, acme, "member", { email: "dev@acme.example", external_id: "usr_dev" });
  outsider = await createCustomer(ctx.deps, org.id, { type: "team" });
  outsiderMember = await createMember(ctx.deps, outsider, "owner", { external_id: "usr_outsider" });
});
afterAll(() => ctx.close());

const open = (payload: object, as: string | null = token) =>
  ctx.request({ method: "POST", url: "/v1/customer-sessions/", token: as, payload });
const memberEvents = (customerId: string) =>
  ctx.deps.db
    .selectFrom("webhook_events")
    .select("type")
    .where("type", "=", "member.created")
    .where(sql<boolean>`payload @> ${JSON.stringify({ data: { customer_id: customerId } })}::jsonb`)
    .execute();

describe("POST /v1/customer-sessions/ for a member", () => {
  it("opens a polar_mst_ member session, stored only as its HMAC, whose portal link carries the member's email", async () => {
    const response = await open({ customer_id: acme.id, member_id: plain.id, return_url: "https://acme.example/account" });
    expect(response.statusCode, response.body).toBe(201);
    const body = response.json();
    expectReferenceResponse("customer-sessions:create", 201, body);
    expect(body.token).toMatch(/^polar_mst_[A-Za-z0-9]{43}$/);
    const now = ctx.clock.now();
    expect(body).toMatchObject({
      created_at: now.toISOString(),
      expires_at: new Date(now.getTime() + 3600_000).toISOString(),
      return_url: "https://acme.example/account",
      customer_id: acme.id,
      customer: { id: acme.id, type: "team" },
      customer_portal_url: `https://checkout.test/${org.slug}/portal?customer_session_token=${body.token}&email=dev%40acme.example`,
    });
    const row = await ctx.deps.db.selectFrom("member_sessions").selectAll().where("id", "=", body.id).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ member_id: plain.id, customer_id: acme.id });
    expect(row.token_hash).toBe(createHmac("sha256", ctx.deps.secret).update(body.token).digest("hex"));
    expect(JSON.stringify(row)).not.toContain(body.token);
    expect(await ctx.deps.db.selectFrom("customer_sessions").select("id").where("id", "=", body.id).execute()).toEqual([]);
  });

  it("finds the member by external ID, and prefers member_id when both are given", async () => {
    const byExternal = await open({ external_customer_id: "acme", external_member_id: "usr_dev" });
    expect(byExternal.statusCode, byExternal.body).toBe(201);
    expect(byExternal.json().customer_portal_url).toContain("email=dev%40acme.example");
    const both = await open({ customer_id: acme.id, member_id: billing.id, external_member_id: "usr_dev" });
    expect(both.statusCode).toBe(201);
    expect(both.json().customer_portal_url).toContain("email=money%40acme.example");
  });

  it("opens an individual customer's session for its owner, creating the owner when missing (member.created)", async () => {
    const solo = await createCustomer(ctx.deps, org.id, { email: "solo@example.com", name: "Solo" });
    const first = await open({ customer_id: solo.id });
    expect(first.statusCode, first.body).toBe(201);
    expect(first.json().token).toMatch(/^polar_mst_/);
    const members = await ctx.deps.db.selectFrom("members").selectAll().where("customer_id", "=", solo.id).execute();
    expect(members).toMatchObject([{ role: "owner", email: "solo@example.com", name: "Solo" }]);
    expect(await open({ customer_id: solo.id }).then((r) => r.statusCode)).toBe(201);
    expect(await ctx.deps.db.selectFrom("members").select("id").where("customer_id", "=", solo.id).execute()).toHaveLength(1);
    expect(await memberEvents(solo.id)).toEqual([{ type: "member.created" }]);
  });

  it("makes one owner when sessions for an individual customer without one are opened in parallel", async () => {
    const solo = await createCustomer(ctx.deps, org.id);
    const responses = await Promise.all(Array.from({ length: 6 }, () => open({ customer_id: solo.id })));
    expect(responses.map((r) => r.statusCode)).toEqual([201, 201, 201, 201, 201, 201]);
    expect(await ctx.deps.db.selectFrom("members").select("id").where("customer_id", "=", solo.id).execute()).toHaveLength(1);
    expect(await memberEvents(solo.id)).toHaveLength(1);
  });

  it("ignores the member fields when the organization has no member model: a customer session", async () => {
    const other = await createOrganization(ctx.deps);
    const otherToken = await createOrganizationToken(ctx.deps, other.id, ["customer_sessions:write"]);
    const customer = await createCustomer(ctx.deps, other.id);
    const response = await open({ customer_id: customer.id, member_id: UNKNOWN }, otherToken);
    expect(response.statusCode, response.body).toBe(201);
    expect(response.json().token).toMatch(/^polar_cst_/);
  });

  describe("bad input", () => {
    let count: number;
    const sessions = async () => (await ctx.deps.db.selectFrom("member_sessions").select("id").execute()).length;
    beforeAll(async () => {
      count = await sessions();
    });
    const post = (payload: () => object) => () => ({ method: "POST" as const, url: "/v1/customer-sessions/", token, payload: payload() });

    badInputTable(
      () => ctx.request,
      [
        {
          name: "a team customer without a member",
          request: post(() => ({ customer_id: acme.id })),
          status: 422,
          loc: ["body", "member_id"],
        },
        {
          name: "a member of another customer",
          request: post(() => ({ customer_id: acme.id, member_id: outsiderMember.id })),
          status: 422,
          loc: ["body", "member_id"],
        },
        {
          name: "an external member ID of another customer",
          request: post(() => ({ customer_id: acme.id, external_member_id: "usr_outsider" })),
          status: 422,
          loc: ["body", "external_member_id"],
        },
        {
          name: "an unknown member",
          request: post(() => ({ customer_id: acme.id, member_id: UNKNOWN })),
          status: 422,
          loc: ["body", "member_id"],
        },
        {
          name: "a non-UUID member_id",
          request: post(() => ({ customer_id: acme.id, member_id: "abc" })),
          status: 422,
          loc: ["body", "member_id"],
        },
        {
          name: "an overlong external_member_id",
          request: post(() => ({ customer_id: acme.id, external_member_id: "m".repeat(257) })),
          status: 422,
          loc: ["body", "external_member_id"],
        },
        {
          name: "a numeric member_id",
          request: post(() => ({ customer_id: acme.id, member_id: 5 })),
          status: 422,
          loc: ["body", "member_id"],
        },
      ],
      async () => expect(await sessions()).toBe(count),
    );

    it("answers the anchor's messages", async () => {
      const team = await open({ customer_id: acme.id });
      expect(team.json().detail).toEqual([
        {
          loc: ["body", "member_id"],
          msg: "Value error, member_id is required for team customers.",
          type: "value_error",
          input: null,
          ctx: { error: {} },
        },
      ]);
      const foreign = await open({ customer_id: acme.id, member_id: outsiderMember.id });
      expectReferenceResponse("customer-sessions:create", 422, foreign.json());
      expect(foreign.json().detail[0].msg).toBe("Value error, Member does not exist for this customer.");
    });
  });
});

describe("the portal with a member session", () => {
  let sessions: Record<"owner" | "billing" | "plain", string>;
  let customerSession: string;
  let orderId: string;
  let foreignOrderId: string;
  let subscriptionId: string;
  beforeAll(async () => {
    sessions = {
      owner: await createMemberSessionToken(ctx.deps, acme.id, owner.id),
      billing: await createMemberSessionToken(ctx.deps, acme.id, billing.id),
      plain: await createMemberSessionToken(ctx.deps, acme.id, plain.id),
    };
    // With the member model on, the API opens member sessions; a customer session still comes from a checkout.
    customerSession = generateToken(TokenPrefix.customerSession);
    await insertCustomerSession(ctx.deps.db, {
      organization_id: org.id,
      customer_id: acme.id,
      token_hash: hashToken(ctx.deps.secret, customerSession),
      modified_at: null,
      expires_at: new Date(ctx.clock.now().getTime() + 3600_000),
      return_url: null,
    });
    orderId = (await createOrder(ctx.deps, org.id, { customer: acme })).id;
    foreignOrderId = (await createOrder(ctx.deps, org.id, { customer: outsider })).id;
    subscriptionId = (await createSubscription(ctx.deps, org.id, { customer: acme })).id;
    await createLicenseKey(ctx.deps, org.id, acme.id);
  });
  const get = (url: string, as: string) => ctx.request({ method: "GET", url, token: as });

  it("lets every member read the customer, its subscriptions and license keys", async () => {
    for (const as of Object.values(sessions)) {
      const me = await get("/v1/customer-portal/customers/me", as);
      expect(me.statusCode, me.body).toBe(200);
      expect(me.json().id).toBe(acme.id);
      const subscriptions = await get("/v1/customer-portal/subscriptions/", as);
      expect(subscriptions.json().items.map((s: { id: string }) => s.id)).toEqual([subscriptionId]);
      expect((await get(`/v1/customer-portal/subscriptions/${subscriptionId}`, as)).statusCode).toBe(200);
      expect((await get("/v1/customer-portal/license-keys/", as)).json().items).toHaveLength(1);
    }
  });

  it("lets owners and billing managers use the billing routes, seeing the whole customer's orders", async () => {
    for (const as of [sessions.owner, sessions.billing]) {
      const orders = await get("/v1/customer-portal/orders/", as);
      expect(orders.statusCode, orders.body).toBe(200);
      expectReferenceResponse("customer_portal:orders:list", 200, orders.json());
      expect(orders.json().items.map((o: { id: string }) => o.id)).toEqual([orderId]);
      expect((await get(`/v1/customer-portal/orders/${orderId}`, as)).statusCode).toBe(200);
      expect((await get("/v1/customer-portal/customers/me/payment-methods", as)).statusCode).toBe(200);
    }
  });

  it("keeps a member session to its own customer: another customer's order is a 404", async () => {
    const response = await get(`/v1/customer-portal/orders/${foreignOrderId}`, sessions.owner);
    expect(response.statusCode).toBe(404);
    expect(response.json().error).toBe("ResourceNotFound");
  });

  const billingRoutes: { name: string; method: "GET" | "PATCH" | "POST" | "DELETE"; url: () => string; payload?: object }[] = [
    { name: "the order list", method: "GET", url: () => "/v1/customer-portal/orders/" },
    { name: "an order", method: "GET", url: () => `/v1/customer-portal/orders/${orderId}` },
    { name: "an order update", method: "PATCH", url: () => `/v1/customer-portal/orders/${orderId}`, payload: { billing_name: "X" } },
    { name: "an order's invoice", method: "GET", url: () => `/v1/customer-portal/orders/${orderId}/invoice` },
    { name: "an order's receipt", method: "GET", url: () => `/v1/customer-portal/orders/${orderId}/receipt` },
    { name: "an order's payment status", method: "GET", url: () => `/v1/customer-portal/orders/${orderId}/payment-status` },
    { name: "the payment methods", method: "GET", url: () => "/v1/customer-portal/customers/me/payment-methods" },
    { name: "a payment method removal", method: "DELETE", url: () => `/v1/customer-portal/customers/me/payment-methods/${UNKNOWN}` },
    { name: "the customer update", method: "PATCH", url: () => "/v1/customer-portal/customers/me", payload: { name: "Renamed" } },
    {
      name: "a subscription update",
      method: "PATCH",
      url: () => `/v1/customer-portal/subscriptions/${subscriptionId}`,
      payload: { cancel_at_period_end: true },
    },
    { name: "a subscription cancellation", method: "DELETE", url: () => `/v1/customer-portal/subscriptions/${subscriptionId}` },
  ];

  describe("refuses a plain member on the billing routes with the anchor's 403, writing nothing", () => {
    let snapshot: string;
    const state = async () =>
      JSON.stringify([
        await ctx.deps.db.selectFrom("customers").selectAll().where("id", "=", acme.id).execute(),
        await ctx.deps.db.selectFrom("subscriptions").selectAll().where("id", "=", subscriptionId).execute(),
        await ctx.deps.db.selectFrom("orders").selectAll().where("id", "=", orderId).execute(),
      ]);
    beforeAll(async () => {
      snapshot = await state();
    });
    badInputTable(
      () => ctx.request,
      billingRoutes.map((route) => ({
        name: `a member's ${route.name}`,
        request: () => ({
          method: route.method,
          url: route.url(),
          token: sessions.plain,
          ...(route.payload ? { payload: route.payload } : {}),
        }),
        status: 403,
        error: "NotPermitted",
      })),
      async () => expect(await state()).toBe(snapshot),
    );

    it("with the anchor's message", async () => {
      const response = await get("/v1/customer-portal/orders/", sessions.plain);
      expect(response.json()).toEqual({ error: "NotPermitted", detail: "Only owners and billing managers can access billing features." });
    });
  });

  it("stops authenticating a member's session once the member is removed, and follows a role change", async () => {
    const temp = await createMember(ctx.deps, acme, "member");
    const session = await createMemberSessionToken(ctx.deps, acme.id, temp.id);
    expect((await get("/v1/customer-portal/orders/", session)).statusCode).toBe(403);
    await ctx.deps.db.updateTable("members").set({ role: "billing_manager" }).where("id", "=", temp.id).execute();
    expect((await get("/v1/customer-portal/orders/", session)).statusCode).toBe(200);
    await ctx.deps.db.updateTable("members").set({ deleted_at: ctx.clock.now() }).where("id", "=", temp.id).execute();
    const response = await get("/v1/customer-portal/customers/me", session);
    expect(response.statusCode).toBe(401);
    expect(response.json().error).toBe("invalid_token");
  });

  describe("GET /v1/customer-portal/customer-session/user", () => {
    it("names the member and its role for a member session, the customer for a customer session", async () => {
      const member = await get("/v1/customer-portal/customer-session/user", sessions.billing);
      expect(member.statusCode, member.body).toBe(200);
      expectReferenceResponse("customer_portal:customer-session:get_authenticated_user", 200, member.json());
      expect(member.json()).toEqual({
        type: "member",
        name: billing.name,
        email: "money@acme.example",
        customer_id: acme.id,
        member_id: billing.id,
        role: "billing_manager",
      });
      const customer = await get("/v1/customer-portal/customer-session/user", customerSession);
      expectReferenceResponse("customer_portal:customer-session:get_authenticated_user", 200, customer.json());
      expect(customer.json()).toEqual({
        type: "customer",
        name: acme.name,
        email: "billing@acme.example",
        customer_id: acme.id,
        member_id: null,
        role: null,
      });
    });

    badInputTable(
      () => ctx.request,
      [
        {
          name: "no token",
          request: () => ({ method: "GET", url: "/v1/customer-portal/customer-session/user" }),
          status: 401,
          error: "Unauthorized",
        },
        {
          name: "an organization token",
          request: () => ({ method: "GET", url: "/v1/customer-portal/customer-session/user", token }),
          status: 401,
          error: "Unauthorized",
        },
      ],
    );
  });

  describe("GET /v1/customer-portal/customer-session/introspect", () => {
    it("describes a member session and a customer session", async () => {
      const opened = (await open({ customer_id: acme.id, member_id: plain.id, return_url: "https://acme.example/back" })).json();
      const member = await get("/v1/customer-portal/customer-session/introspect", opened.token);
      expect(member.statusCode, member.body).toBe(200);
      expectReferenceResponse("customer_portal:customer-session:introspect", 200, member.json());
      expect(member.json()).toEqual({ expires_at: opened.expires_at, return_url: "https://acme.example/back" });
      const customer = await get("/v1/customer-portal/customer-session/introspect", customerSession);
      expect(customer.statusCode).toBe(200);
      expect(customer.json()).toEqual({ expires_at: expect.any(String), return_url: null });
    });

    badInputTable(
      () => ctx.request,
      [
        {
          name: "no token",
          request: () => ({ method: "GET", url: "/v1/customer-portal/customer-session/introspect" }),
          status: 401,
          error: "Unauthorized",
        },
        {
          name: "an organization token",
          request: () => ({ method: "GET", url: "/v1/customer-portal/customer-session/introspect", token }),
          status: 401,
          error: "Unauthorized",
        },
        {
          name: "a malformed member token",
          request: () => ({ method: "GET", url: "/v1/customer-portal/customer-session/introspect", token: "polar_mst_nope" }),
          status: 401,
          error: "invalid_token",
        },
      ],
    );
  });
});
