import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { badInputTable } from "../../helpers/bad-inputs.ts";
import type { TestContext } from "../../helpers/context.ts";
import {
  createCustomer,
  createCustomerSessionToken,
  createOrganization,
  createProduct,
  openOrganizationContext,
} from "../../helpers/factories.ts";
import { expectReferenceResponse } from "../../helpers/reference.ts";
import { LICENSE, NOTE } from "../benefits/grant-fixtures.ts";
import { buyThroughCheckout, eventTypesOf } from "../subscriptions/subscription-helpers.ts";
import { createMember, createMemberSessionToken, enableMembers } from "./member-helpers.ts";

// DELETE /v1/customers/{id} and /v1/customers/external/{external_id}: what a deletion takes back
// (subscriptions, grants, license keys, members, sessions), what it frees (external ID, email) and
// what it keeps (orders).

let ctx: TestContext;
let org: { id: string };
let checkoutToken: string;
let writeToken: string;
let readToken: string;

beforeAll(async () => {
  ({
    ctx,
    org,
    tokens: [checkoutToken, writeToken, readToken],
  } = await openOrganizationContext(["checkouts:write"], ["customers:write"], ["customers:read", "orders:read", "subscriptions:read"]));
});
afterAll(() => ctx.close());

/** A buyer who bought a one-time product (license key and note) and a monthly plan (a note), as `externalId`. */
async function buyer(email: string, externalId: string) {
  const oneTime = await createProduct(ctx.deps, org.id, { benefits: [LICENSE, NOTE] });
  const plan = await createProduct(ctx.deps, org.id, {
    product: { recurring_interval: "month", recurring_interval_count: 1 },
    prices: [{ amount_type: "fixed", price_amount: 900 }],
    benefits: [{ type: "custom", description: "Club perks", properties: { note: null } }],
  });
  const identity = { checkout: { external_customer_id: externalId }, buyer: { customer_email: email } };
  const order = await buyThroughCheckout(ctx, checkoutToken, oneTime.product.id, identity);
  const subscription = await buyThroughCheckout(ctx, checkoutToken, plan.product.id, identity);
  expect(subscription.checkout.customer_id).toBe(order.checkout.customer_id);
  return { customerId: order.checkout.customer_id, checkoutId: order.checkout.id, subscriptionId: subscription.checkout.subscription_id };
}

const remove = (url: string, token: string | null = writeToken) => ctx.request({ method: "DELETE", url, token });
const customerRow = (id: string) => ctx.deps.db.selectFrom("customers").selectAll().where("id", "=", id).executeTakeFirstOrThrow();
const grantsOf = (customerId: string) =>
  ctx.deps.db.selectFrom("benefit_grants").select(["granted_at", "revoked_at"]).where("customer_id", "=", customerId).execute();
const deletedEvents = (customerId: string) =>
  ctx.deps.db
    .selectFrom("webhook_events")
    .select("payload")
    .where("type", "=", "customer.deleted")
    .where(sql<boolean>`payload->'data'->>'id' = ${customerId}`)
    .execute();

describe("DELETE /v1/customers/{id}", () => {
  it("revokes the subscription and every grant, frees the external ID and email, keeps the orders, records customer.deleted", async () => {
    const { customerId, checkoutId, subscriptionId } = await buyer("leaving@example.com", "usr_leaving");
    const sessionToken = await createCustomerSessionToken(ctx.deps, customerId);
    expect((await ctx.request({ method: "GET", url: "/v1/customer-portal/customers/me", token: sessionToken })).statusCode).toBe(200);
    ctx.clock.advance(60_000);

    const response = await remove(`/v1/customers/${customerId}`);
    expect(response.statusCode, response.body).toBe(204);
    expect(response.body).toBe("");
    const now = ctx.clock.now();

    // Gone from every read, and a second deletion finds nothing.
    expect((await ctx.request({ method: "GET", url: `/v1/customers/${customerId}`, token: readToken })).statusCode).toBe(404);
    expect((await ctx.request({ method: "GET", url: "/v1/customers/external/usr_leaving", token: readToken })).statusCode).toBe(404);
    expect((await remove(`/v1/customers/${customerId}`)).statusCode).toBe(404);
    // Its portal session no longer authenticates.
    expect((await ctx.request({ method: "GET", url: "/v1/customer-portal/customers/me", token: sessionToken })).statusCode).toBe(401);

    // The subscription was revoked now, with the hosted service's events.
    const subscription = await ctx.request({ method: "GET", url: `/v1/subscriptions/${subscriptionId}`, token: readToken });
    expect(subscription.json()).toMatchObject({ status: "canceled", ended_at: now.toISOString(), canceled_at: now.toISOString() });
    expect(await eventTypesOf(ctx, subscriptionId)).toEqual(expect.arrayContaining(["subscription.canceled", "subscription.revoked"]));
    // Every grant (the one-time order's and the plan's) revoked, the license key with them.
    const grants = await grantsOf(customerId);
    expect(grants).toHaveLength(3);
    for (const grant of grants) expect(grant).toEqual({ granted_at: null, revoked_at: now });
    const key = await ctx.deps.db
      .selectFrom("license_keys")
      .select("status")
      .where("customer_id", "=", customerId)
      .executeTakeFirstOrThrow();
    expect(key.status).toBe("revoked");

    // The row stays, soft-deleted, its external ID kept in the metadata only.
    const row = await customerRow(customerId);
    expect(row).toMatchObject({
      deleted_at: now,
      external_id: null,
      email: "leaving@example.com",
      metadata: { __external_id: "usr_leaving" },
    });
    const [event] = await deletedEvents(customerId);
    const data = event!.payload.data as Record<string, unknown>;
    expectReferenceResponse("customers:get", 200, data);
    expect(data).toMatchObject({ id: customerId, deleted_at: now.toISOString(), external_id: "usr_leaving" });
    expect(await deletedEvents(customerId)).toHaveLength(1);

    // The order a seller keeps for tax is still there, showing the deleted customer.
    const order = await ctx.deps.db.selectFrom("orders").select("id").where("checkout_id", "=", checkoutId).executeTakeFirstOrThrow();
    const read = await ctx.request({ method: "GET", url: `/v1/orders/${order.id}`, token: readToken });
    expect(read.statusCode).toBe(200);
    expect(read.json().customer).toMatchObject({ id: customerId, deleted_at: now.toISOString() });

    // A new customer may take the external ID and the email at once.
    const again = await ctx.request({
      method: "POST",
      url: "/v1/customers/",
      token: writeToken,
      payload: { email: "leaving@example.com", external_id: "usr_leaving" },
    });
    expect(again.statusCode, again.body).toBe(201);
  });

  it("deletes the members of a team, whose sessions stop authenticating", async () => {
    await enableMembers(ctx.deps, org.id);
    const created = await ctx.request({
      method: "POST",
      url: "/v1/customers/",
      token: writeToken,
      payload: { type: "team", email: "team@example.com", name: "Team" },
    });
    expect(created.statusCode, created.body).toBe(201);
    const team = created.json();
    const member = await createMember(ctx.deps, team, "member");
    const memberToken = await createMemberSessionToken(ctx.deps, team.id, member.id);
    expect((await ctx.request({ method: "GET", url: "/v1/customer-portal/customers/me", token: memberToken })).statusCode).toBe(200);
    expect((await remove(`/v1/customers/${team.id}`)).statusCode).toBe(204);
    const members = await ctx.deps.db.selectFrom("members").select("deleted_at").where("customer_id", "=", team.id).execute();
    expect(members.length).toBe(2);
    for (const row of members) expect(row.deleted_at).toEqual(ctx.clock.now());
    expect((await ctx.request({ method: "GET", url: "/v1/customer-portal/customers/me", token: memberToken })).statusCode).toBe(401);
  });
});

describe("DELETE /v1/customers/external/{external_id}", () => {
  it("deletes by external ID and, with anonymize=true, replaces the personal data while keeping the tax ID", async () => {
    const created = await ctx.request({
      method: "POST",
      url: "/v1/customers/",
      token: writeToken,
      payload: {
        email: "private@example.com",
        name: "Private Person",
        external_id: "usr/private é",
        billing_address: { country: "DE", city: "Berlin" },
        metadata: { plan: "pro" },
      },
    });
    expect(created.statusCode, created.body).toBe(201);
    const id = created.json().id as string;
    await ctx.deps.db.updateTable("customers").set({ billing_name: "Private Billing" }).where("id", "=", id).execute();

    const response = await remove(`/v1/customers/external/${encodeURIComponent("usr/private é")}?anonymize=true`);
    expect(response.statusCode, response.body).toBe(204);
    const row = await customerRow(id);
    expect(row.email).toMatch(/^[0-9a-f]{64}@anonymized\.invalid$/);
    expect(row).toMatchObject({ email_verified: false, billing_address: null, external_id: null, deleted_at: ctx.clock.now() });
    expect(row.name).toMatch(/^[0-9a-f]{64}$/);
    expect(row.billing_name).toMatch(/^[0-9a-f]{64}$/);
    expect(row.metadata).toEqual({ plan: "pro", __external_id: "usr/private é", __anonymized_at: ctx.clock.now().toISOString() });
    const [event] = await deletedEvents(id);
    expect(event!.payload.data).toMatchObject({ email: row.email, external_id: "usr/private é" });
    expect((await remove(`/v1/customers/external/${encodeURIComponent("usr/private é")}`)).statusCode).toBe(404);
  });

  it("keeps the name of a business with a tax ID when anonymizing", async () => {
    const created = await ctx.request({
      method: "POST",
      url: "/v1/customers/",
      token: writeToken,
      payload: {
        email: "gmbh@example.com",
        name: "Beispiel GmbH",
        external_id: "org_gmbh",
        billing_address: { country: "DE" },
        tax_id: "DE136695976",
      },
    });
    expect(created.statusCode, created.body).toBe(201);
    expect((await remove("/v1/customers/external/org_gmbh?anonymize=true")).statusCode).toBe(204);
    const row = await customerRow(created.json().id);
    expect(row).toMatchObject({ name: "Beispiel GmbH", tax_id: ["DE136695976", "eu_vat"], billing_address: null });
  });
});

describe("bad input to both deletions", () => {
  const UNKNOWN = "3f2b1c4d-1111-4222-8333-123456789abc";
  let target: { id: string };
  let foreign: { id: string };
  const state = async () => ({
    deleted: (await ctx.deps.db.selectFrom("customers").select("id").where("deleted_at", "is not", null).execute()).length,
    events: (await ctx.deps.db.selectFrom("webhook_events").select("id").execute()).length,
  });
  let snapshot: Awaited<ReturnType<typeof state>>;
  beforeAll(async () => {
    target = await createCustomer(ctx.deps, org.id, { external_id: "bad_input_target" });
    foreign = await createCustomer(ctx.deps, (await createOrganization(ctx.deps)).id, { external_id: "foreign_1" });
    snapshot = await state();
  });
  const del =
    (url: () => string, token: () => string | null = () => writeToken) =>
    () => ({
      method: "DELETE" as const,
      url: url(),
      token: token(),
    });

  badInputTable(
    () => ctx.request,
    [
      { name: "a non-UUID id", request: del(() => "/v1/customers/nope"), status: 422, loc: ["path", "id"] },
      { name: "an unknown id", request: del(() => `/v1/customers/${UNKNOWN}`), status: 404, error: "ResourceNotFound" },
      {
        name: "another organization's customer",
        request: del(() => `/v1/customers/${foreign.id}`),
        status: 404,
        error: "ResourceNotFound",
      },
      { name: "an unknown external ID", request: del(() => "/v1/customers/external/nobody"), status: 404, error: "ResourceNotFound" },
      {
        name: "another organization's external ID",
        request: del(() => "/v1/customers/external/foreign_1"),
        status: 404,
        error: "ResourceNotFound",
      },
      {
        name: "an overlong external ID",
        request: del(() => `/v1/customers/external/${"x".repeat(300)}`),
        status: 422,
        loc: ["path", "external_id"],
      },
      {
        name: "a non-boolean anonymize",
        request: del(() => `/v1/customers/${target.id}?anonymize=perhaps`),
        status: 422,
        loc: ["query", "anonymize"],
      },
      {
        name: "a non-boolean anonymize by external ID",
        request: del(() => "/v1/customers/external/bad_input_target?anonymize=2"),
        status: 422,
        loc: ["query", "anonymize"],
      },
      {
        name: "a token without customers:write",
        request: del(
          () => `/v1/customers/${target.id}`,
          () => readToken,
        ),
        status: 403,
        error: "insufficient_scope",
      },
      {
        name: "an external deletion without customers:write",
        request: del(
          () => "/v1/customers/external/bad_input_target",
          () => readToken,
        ),
        status: 403,
        error: "insufficient_scope",
      },
      {
        name: "no token",
        request: del(
          () => `/v1/customers/${target.id}`,
          () => null,
        ),
        status: 401,
        error: "Unauthorized",
      },
      {
        name: "a wrong token",
        request: del(
          () => `/v1/customers/${target.id}`,
          () => `${writeToken}x`,
        ),
        status: 401,
        error: "invalid_token",
      },
    ],
    async () => expect(await state()).toEqual(snapshot),
  );
});
