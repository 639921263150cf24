import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CustomerRow } from "../../../src/modules/customers/customers.table.ts";
import { badInputTable, type BadInputCase } from "../../helpers/bad-inputs.ts";
import type { TestContext } from "../../helpers/context.ts";
import {
  createCustomer,
  createForeignToken,
  createOrder,
  createOrganization,
  createOrganizationToken,
  createProduct,
  createSubscription,
  type ProductWithPrices,
} from "../../helpers/factories.ts";
import { expectReferenceResponse } from "../../helpers/reference.ts";
import { startMailingContext, stopMailingContext, type TestSmtpServer } from "../../helpers/smtp-server.ts";
import { mailsTo } from "../customer-portal/portal-sign-in-helpers.ts";
import { createMember, createMemberSessionToken, enableMembers } from "../customers/member-helpers.ts";
import { runEmailJobs } from "../emails/email-helpers.ts";
import { buyThroughCheckout } from "../subscriptions/subscription-helpers.ts";

/** `/v1/customer-seats`: assignment, invitation by email (a real SMTP server), claim, grants, revocation, resend. */
let smtp: TestSmtpServer;
let ctx: TestContext;
let org: { id: string; name: string; slug: string };
let token: string;
let readToken: string;
let product: ProductWithPrices;
const UNKNOWN = "3f2b1c4d-1111-4222-8333-123456789abc";
let mailbox = 0;

beforeAll(async () => {
  ({ ctx, smtp } = await startMailingContext());
  org = await createOrganization(ctx.deps);
  await enableMembers(ctx.deps, org.id);
  await enableMembers(ctx.deps, org.id, "seat_based_pricing_enabled");
  token = await createOrganizationToken(ctx.deps, org.id, ["customer_seats:write", "subscriptions:write"]);
  readToken = await createOrganizationToken(ctx.deps, org.id, ["customer_seats:read"]);
  product = await createProduct(ctx.deps, org.id, {
    product: { name: "Team Plan", recurring_interval: "month", recurring_interval_count: 1 },
    prices: [{ amount_type: "fixed", price_amount: 1000 }],
    benefits: [{ type: "license_keys", description: "Seat licence", properties: { prefix: "SEAT" } }],
  });
});
afterAll(() => stopMailingContext({ ctx, smtp }));

const newEmail = () => `holder-${++mailbox}-${Date.now()}@example.com`;

async function seatedSubscription(seats: number, organizationId = org.id, on = product): Promise<{ id: string; buyer: CustomerRow }> {
  const buyer = await createCustomer(ctx.deps, organizationId, { type: "team", email: `buyer-${++mailbox}@example.com` });
  const productOf = organizationId === org.id ? on : undefined;
  const subscription = await createSubscription(ctx.deps, organizationId, { customer: buyer, ...(productOf && { product: productOf }) });
  await ctx.deps.db.updateTable("subscriptions").set({ seats }).where("id", "=", subscription.id).execute();
  return { id: subscription.id, buyer };
}

const assign = (payload: object, as = token) => ctx.request({ method: "POST", url: "/v1/customer-seats", token: as, payload });
const seatRow = (id: string) => ctx.deps.db.selectFrom("customer_seats").selectAll().where("id", "=", id).executeTakeFirstOrThrow();
const seatEvents = (seatId: string) =>
  ctx.deps.db
    .selectFrom("webhook_events")
    .select("type")
    .where("organization_id", "=", org.id)
    .where("type", "like", "customer_seat.%")
    .where(sql<boolean>`payload @> ${JSON.stringify({ data: { id: seatId } })}::jsonb`)
    // The recording order: events of one transaction share its timestamp.
    .orderBy("position")
    .execute()
    .then((rows) => rows.map((row) => row.type));
const grantsOfSeat = (seatId: string) => ctx.deps.db.selectFrom("benefit_grants").selectAll().where("seat_id", "=", seatId).execute();

/** Sends the queued emails, then reads the claim token of the newest invitation to the address, as its reader clicks it. */
async function tokenFromInvitation(address: string): Promise<string> {
  await runEmailJobs(ctx);
  const mail = mailsTo(smtp, address).at(-1);
  const match = /[?&]token=([A-Za-z0-9_-]+)/.exec(mail?.text ?? "");
  if (!match) throw new Error(`no invitation to ${address}`);
  return match[1]!;
}

describe("assign → invitation → claim", () => {
  it("invites by email, stores only the token's hash, and the claim gives the holder member-scoped grants and a member session", async () => {
    const { id: subscriptionId, buyer } = await seatedSubscription(2);
    const email = newEmail();
    const response = await assign({ subscription_id: subscriptionId, email, metadata: { team: "design" } });
    expect(response.statusCode, response.body).toBe(200);
    const seat = response.json();
    expectReferenceResponse("customer-seats:assign_seat", 200, seat);
    expect(seat).toMatchObject({
      status: "pending",
      subscription_id: subscriptionId,
      order_id: null,
      customer_id: buyer.id,
      email,
      customer_email: email,
      claimed_at: null,
      seat_metadata: { team: "design" },
      member: { email, role: "member", customer_id: buyer.id },
    });
    const expires = new Date(seat.invitation_token_expires_at).getTime();
    expect(expires - new Date(seat.created_at).getTime()).toBe(24 * 3600 * 1000);

    const claimToken = await tokenFromInvitation(email);
    const mail = mailsTo(smtp, email).at(-1)!;
    expect(mail.subject).toBe("You've been invited to access Team Plan");
    expect(mail.text).toContain(buyer.email);
    expect(mail.text).toContain(`https://checkout.test/${org.slug}/portal/claim?token=${claimToken}`);
    const row = await seatRow(seat.id);
    expect(row.invitation_token_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(row)).not.toContain(claimToken);

    const info = await ctx.request({ method: "GET", url: `/v1/customer-seats/claim/${claimToken}` });
    expect(info.statusCode, info.body).toBe(200);
    expectReferenceResponse("customer-seats:get_claim_info", 200, info.json());
    expect(info.json()).toEqual({
      product_name: "Team Plan",
      product_id: product.product.id,
      organization_name: org.name,
      organization_slug: org.slug,
      customer_email: email,
      can_claim: true,
    });
    expect((await seatRow(seat.id)).status).toBe("pending");

    const claimed = await ctx.request({ method: "POST", url: "/v1/customer-seats/claim", payload: { invitation_token: claimToken } });
    expect(claimed.statusCode, claimed.body).toBe(200);
    expectReferenceResponse("customer-seats:claim_seat", 200, claimed.json());
    expect(claimed.json().seat).toMatchObject({ id: seat.id, status: "claimed" });
    expect(claimed.json().customer_session_token).toMatch(/^polar_mst_/);
    const me = await ctx.request({
      method: "GET",
      url: "/v1/customer-portal/customer-session/user",
      token: claimed.json().customer_session_token,
    });
    expect(me.json()).toMatchObject({ type: "member", email, customer_id: buyer.id, member_id: seat.member_id });

    const grants = await grantsOfSeat(seat.id);
    expect(grants).toHaveLength(1);
    expect(grants[0]).toMatchObject({ customer_id: buyer.id, member_id: seat.member_id, order_id: null, subscription_id: null });
    expect(grants[0]!.granted_at).not.toBeNull();
    expect(await seatEvents(seat.id)).toEqual(["customer_seat.assigned", "customer_seat.claimed"]);

    // Single use: the token is gone.
    const again = await ctx.request({ method: "POST", url: "/v1/customer-seats/claim", payload: { invitation_token: claimToken } });
    expect(again.statusCode).toBe(400);
    expect(again.json()).toEqual({ error: "BadRequest", detail: "Invalid or expired invitation token" });
    expect((await ctx.request({ method: "GET", url: `/v1/customer-seats/claim/${claimToken}` })).statusCode).toBe(404);

    const list = await ctx.request({ method: "GET", url: `/v1/customer-seats?subscription_id=${subscriptionId}`, token: readToken });
    expect(list.statusCode).toBe(200);
    expectReferenceResponse("customer-seats:list_seats", 200, list.json());
    expect(list.json()).toMatchObject({ available_seats: 1, total_seats: 2 });
    expect(list.json().seats.map((s: { id: string }) => s.id)).toEqual([seat.id]);
  });

  it("claims at once with immediate_claim: no token, no email", async () => {
    const { id } = await seatedSubscription(1);
    const email = newEmail();
    const response = await assign({ subscription_id: id, email, immediate_claim: true });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toMatchObject({ status: "claimed", invitation_token_expires_at: null });
    await runEmailJobs(ctx);
    expect(mailsTo(smtp, email)).toEqual([]);
    expect(await grantsOfSeat(response.json().id)).toHaveLength(1);
  });
});

describe("revoke and resend", () => {
  it("revokes a claimed seat with its grants, answers a second revoke unchanged, and reuses the row", async () => {
    const { id } = await seatedSubscription(1);
    const seat = (await assign({ subscription_id: id, email: newEmail(), immediate_claim: true })).json();
    const revoked = await ctx.request({ method: "DELETE", url: `/v1/customer-seats/${seat.id}`, token });
    expect(revoked.statusCode, revoked.body).toBe(200);
    expectReferenceResponse("customer-seats:revoke_seat", 200, revoked.json());
    expect(revoked.json()).toMatchObject({ status: "revoked", member_id: null, customer_id: null, email: null, member: null });
    const [grant] = await grantsOfSeat(seat.id);
    expect(grant).toMatchObject({ granted_at: null });
    expect(grant!.revoked_at).not.toBeNull();
    const twice = await ctx.request({ method: "DELETE", url: `/v1/customer-seats/${seat.id}`, token });
    expect(twice.json()).toEqual(revoked.json());
    // Assigned and claimed in one transaction share a timestamp: their order in the list is not theirs.
    expect((await seatEvents(seat.id)).sort()).toEqual(["customer_seat.assigned", "customer_seat.claimed", "customer_seat.revoked"]);

    const reused = await assign({ subscription_id: id, email: newEmail() });
    expect(reused.statusCode, reused.body).toBe(200);
    expect(reused.json()).toMatchObject({ id: seat.id, status: "pending", revoked_at: null });
  });

  it("resends a new token (the old link stops working) without extending the expiry", async () => {
    const { id } = await seatedSubscription(1);
    const email = newEmail();
    const seat = (await assign({ subscription_id: id, email })).json();
    const first = await tokenFromInvitation(email);
    const resent = await ctx.request({ method: "POST", url: `/v1/customer-seats/${seat.id}/resend`, token });
    expect(resent.statusCode, resent.body).toBe(200);
    expectReferenceResponse("customer-seats:resend_invitation", 200, resent.json());
    expect(resent.json().invitation_token_expires_at).toBe(seat.invitation_token_expires_at);
    const second = await tokenFromInvitation(email);
    expect(second).not.toBe(first);
    expect(mailsTo(smtp, email)).toHaveLength(2);
    expect((await ctx.request({ method: "GET", url: `/v1/customer-seats/claim/${first}` })).statusCode).toBe(404);
    expect((await ctx.request({ method: "GET", url: `/v1/customer-seats/claim/${second}` })).statusCode).toBe(200);
  });

  it("refuses to resend or claim an expired invitation, and to resend a claimed seat", async () => {
    const { id } = await seatedSubscription(2);
    const email = newEmail();
    const seat = (await assign({ subscription_id: id, email })).json();
    const claimToken = await tokenFromInvitation(email);
    await ctx.deps.db
      .updateTable("customer_seats")
      .set({ invitation_token_expires_at: new Date(ctx.deps.now().getTime() - 1000) })
      .where("id", "=", seat.id)
      .execute();
    const resend = await ctx.request({ method: "POST", url: `/v1/customer-seats/${seat.id}/resend`, token });
    expect(resend.statusCode).toBe(400);
    expect(resend.json().detail).toBe("Invalid or expired invitation token");
    expect(
      (await ctx.request({ method: "POST", url: "/v1/customer-seats/claim", payload: { invitation_token: claimToken } })).statusCode,
    ).toBe(400);
    expect((await ctx.request({ method: "GET", url: `/v1/customer-seats/claim/${claimToken}` })).statusCode).toBe(404);

    const held = (await assign({ subscription_id: id, email: newEmail(), immediate_claim: true })).json();
    const notPending = await ctx.request({ method: "POST", url: `/v1/customer-seats/${held.id}/resend`, token });
    expect(notPending.statusCode).toBe(400);
    expect(notPending.json().detail).toBe("Seat is not in pending status");
  });
});

describe("a subscription leaving active", () => {
  it("revokes every seat of a revoked subscription, and the holders' grants with them", async () => {
    const { id } = await seatedSubscription(2);
    const a = (await assign({ subscription_id: id, email: newEmail(), immediate_claim: true })).json();
    const b = (await assign({ subscription_id: id, email: newEmail() })).json();
    const ended = await ctx.request({ method: "DELETE", url: `/v1/subscriptions/${id}`, token });
    expect(ended.statusCode, ended.body).toBe(200);
    expect((await seatRow(a.id)).status).toBe("revoked");
    expect((await seatRow(b.id)).status).toBe("revoked");
    expect((await grantsOfSeat(a.id))[0]!.granted_at).toBeNull();
    expect(await seatEvents(b.id)).toContain("customer_seat.revoked");
  });
});

describe("the portal's seats", () => {
  it("lets the buyer's owner assign, list, resend and revoke; the holder lists the subscriptions of its claimed seats", async () => {
    const { id, buyer } = await seatedSubscription(2);
    const owner = await createMember(ctx.deps, buyer, "owner", { email: buyer.email });
    const ownerToken = await createMemberSessionToken(ctx.deps, buyer.id, owner.id);
    const portal = (method: "GET" | "POST" | "DELETE", url: string, payload?: object, as = ownerToken) =>
      ctx.request({ method, url: `/v1/customer-portal${url}`, token: as, ...(payload && { payload }) });

    const email = newEmail();
    const assigned = await portal("POST", "/seats", { subscription_id: id, email });
    expect(assigned.statusCode, assigned.body).toBe(200);
    expectReferenceResponse("customer_portal:seats:assign_seat", 200, assigned.json());
    const list = await portal("GET", `/seats?subscription_id=${id}`);
    expect(list.statusCode, list.body).toBe(200);
    expectReferenceResponse("customer_portal:seats:list_seats", 200, list.json());
    expect(list.json()).toMatchObject({ total_seats: 2, available_seats: 1 });
    // The first invitation goes out before the resend's: sent in one run, they could arrive in either order.
    await runEmailJobs(ctx);
    const resent = await portal("POST", `/seats/${assigned.json().id}/resend`);
    expect(resent.statusCode, resent.body).toBe(200);
    expectReferenceResponse("customer_portal:seats:resend_invitation", 200, resent.json());

    const claimToken = await tokenFromInvitation(email);
    const claimed = await ctx.request({ method: "POST", url: "/v1/customer-seats/claim", payload: { invitation_token: claimToken } });
    const holderToken = claimed.json().customer_session_token;
    const held = await portal("GET", "/seats/subscriptions", undefined, holderToken);
    expect(held.statusCode, held.body).toBe(200);
    expectReferenceResponse("customer_portal:seats:list_claimed_subscriptions", 200, held.json());
    expect(held.json().items.map((s: { id: string }) => s.id)).toEqual([id]);
    expect((await portal("GET", "/seats/subscriptions")).json().items).toEqual([]);

    // A plain member changes nothing.
    expect((await portal("POST", "/seats", { subscription_id: id, email: newEmail() }, holderToken)).statusCode).toBe(403);
    expect((await portal("DELETE", `/seats/${assigned.json().id}`, undefined, holderToken)).statusCode).toBe(403);

    const revoked = await portal("DELETE", `/seats/${assigned.json().id}`);
    expect(revoked.statusCode, revoked.body).toBe(200);
    expectReferenceResponse("customer_portal:seats:revoke_seat", 200, revoked.json());
    expect(revoked.json().status).toBe("revoked");

    // Another customer's subscription and seats are not the session's.
    const other = await seatedSubscription(1);
    const foreignSeat = (await assign({ subscription_id: other.id, email: newEmail() })).json();
    expect((await portal("GET", `/seats?subscription_id=${other.id}`)).statusCode).toBe(404);
    expect((await portal("POST", "/seats", { subscription_id: other.id, email: newEmail() })).statusCode).toBe(404);
    expect((await portal("DELETE", `/seats/${foreignSeat.id}`)).statusCode).toBe(404);
    expect((await portal("POST", `/seats/${foreignSeat.id}/resend`)).statusCode).toBe(404);
    expect((await portal("DELETE", "/seats/nope")).statusCode).toBe(422);
    expect((await ctx.request({ method: "GET", url: `/v1/customer-portal/seats?subscription_id=${id}` })).statusCode).toBe(401);
  });
});

describe("the seat limit", () => {
  it("gives the last seat to exactly one of two parallel assignments", async () => {
    const { id } = await seatedSubscription(1);
    const [one, two] = await Promise.all([
      assign({ subscription_id: id, email: newEmail() }),
      assign({ subscription_id: id, email: newEmail() }),
    ]);
    expect([one.statusCode, two.statusCode].sort()).toEqual([200, 400]);
    const refused = one.statusCode === 400 ? one : two;
    expect(refused.json()).toEqual({ error: "BadRequest", detail: `No available seats for ${id}` });
    const seats = await ctx.deps.db.selectFrom("customer_seats").select("id").where("subscription_id", "=", id).execute();
    expect(seats).toHaveLength(1);
  });

  it("refuses a second live seat for the same holder", async () => {
    const { id } = await seatedSubscription(2);
    const email = newEmail();
    expect((await assign({ subscription_id: id, email })).statusCode).toBe(200);
    const again = await assign({ subscription_id: id, email });
    expect(again.statusCode).toBe(400);
    expect(again.json().detail).toBe(`Seat already assigned to customer ${email}`);
  });
});

describe("bad input", () => {
  let subscriptionId = "";
  let foreignSubscription = "";
  let pendingOrder = "";
  let offToken = "";
  let offSubscription = "";
  let noScope = "";
  let foreignToken = "";
  beforeAll(async () => {
    subscriptionId = (await seatedSubscription(5)).id;
    const other = await createOrganization(ctx.deps);
    await enableMembers(ctx.deps, other.id);
    await enableMembers(ctx.deps, other.id, "seat_based_pricing_enabled");
    foreignSubscription = (await seatedSubscription(5, other.id)).id;
    const buyer = await createCustomer(ctx.deps, org.id, { type: "team" });
    pendingOrder = (
      await createOrder(ctx.deps, org.id, {
        customer: buyer,
        product: product.product,
        paid: false,
        values: { status: "pending", seats: 3 },
      })
    ).id;
    const off = await createOrganization(ctx.deps);
    offToken = await createOrganizationToken(ctx.deps, off.id, ["customer_seats:write", "customer_seats:read"]);
    offSubscription = (await seatedSubscription(5, off.id)).id;
    noScope = await createOrganizationToken(ctx.deps, org.id, ["customers:read"]);
    foreignToken = await createForeignToken(ctx.deps, ["customer_seats:write"]);
  });
  const seatCount = () =>
    ctx.deps.db
      .selectFrom("customer_seats")
      .select(({ fn }) => fn.countAll<string>().as("n"))
      .executeTakeFirstOrThrow();
  let before = "";
  const post =
    (payload: () => object, as: () => string | null = () => token): BadInputCase["request"] =>
    () => ({
      method: "POST",
      url: "/v1/customer-seats",
      token: as(),
      payload: payload(),
    });
  const cases: BadInputCase[] = [
    {
      name: "no token",
      request: post(
        () => ({ subscription_id: subscriptionId, email: "a@example.com" }),
        () => null,
      ),
      status: 401,
    },
    {
      name: "a wrong token",
      request: post(
        () => ({ subscription_id: subscriptionId, email: "a@example.com" }),
        () => "polar_oat_nope",
      ),
      status: 401,
    },
    {
      name: "a token without the scope",
      request: post(
        () => ({ subscription_id: subscriptionId, email: "a@example.com" }),
        () => noScope,
      ),
      status: 403,
    },
    {
      name: "the read scope only",
      request: post(
        () => ({ subscription_id: subscriptionId, email: "a@example.com" }),
        () => readToken,
      ),
      status: 403,
    },
    {
      name: "seat-based pricing off",
      request: post(
        () => ({ subscription_id: offSubscription, email: "a@example.com" }),
        () => offToken,
      ),
      status: 403,
      error: "NotPermitted",
    },
    {
      name: "a non-UUID subscription_id",
      request: post(() => ({ subscription_id: "nope", email: "a@example.com" })),
      status: 422,
      loc: ["body", "subscription_id"],
    },
    {
      name: "an email that is not one",
      request: post(() => ({ subscription_id: subscriptionId, email: "nope" })),
      status: 422,
      loc: ["body", "email"],
    },
    {
      name: "an overlong external_customer_id",
      request: post(() => ({ subscription_id: subscriptionId, external_customer_id: "x".repeat(300) })),
      status: 422,
      loc: ["body", "external_customer_id"],
    },
    {
      name: "a wrongly typed immediate_claim",
      request: post(() => ({ subscription_id: subscriptionId, email: "a@example.com", immediate_claim: "yes" })),
      status: 422,
      loc: ["body", "immediate_claim"],
    },
    {
      name: "metadata of 11 keys",
      request: post(() => ({
        subscription_id: subscriptionId,
        email: "a@example.com",
        metadata: Object.fromEntries(Array.from({ length: 11 }, (_, i) => [`k${i}`, i])),
      })),
      status: 422,
      loc: ["body", "metadata"],
    },
    {
      name: "metadata over 1 KB",
      request: post(() => ({ subscription_id: subscriptionId, email: "a@example.com", metadata: { big: "x".repeat(1100) } })),
      status: 422,
      loc: ["body", "metadata"],
    },
    {
      name: "both subscription_id and order_id",
      request: post(() => ({ subscription_id: subscriptionId, order_id: pendingOrder, email: "a@example.com" })),
      status: 422,
      loc: ["body"],
    },
    { name: "neither subscription_id nor order_id", request: post(() => ({ email: "a@example.com" })), status: 422, loc: ["body"] },
    { name: "no holder", request: post(() => ({ subscription_id: subscriptionId })), status: 422, loc: ["body"] },
    {
      name: "member_id with email",
      request: post(() => ({ subscription_id: subscriptionId, member_id: UNKNOWN, email: "a@example.com" })),
      status: 422,
      loc: ["body"],
    },
    {
      name: "customer and member identifiers",
      request: post(() => ({ subscription_id: subscriptionId, customer_id: UNKNOWN, member_id: UNKNOWN })),
      status: 422,
      loc: ["body"],
    },
    {
      name: "an unknown subscription",
      request: post(() => ({ subscription_id: UNKNOWN, email: "a@example.com" })),
      status: 404,
      error: "ResourceNotFound",
    },
    {
      name: "another organization's subscription",
      request: post(() => ({ subscription_id: foreignSubscription, email: "a@example.com" })),
      status: 404,
      error: "ResourceNotFound",
    },
    {
      name: "this organization's subscription from another's token",
      request: post(
        () => ({ subscription_id: subscriptionId, email: "a@example.com" }),
        () => foreignToken,
      ),
      status: 404,
    },
    {
      name: "an unpaid order",
      request: post(() => ({ order_id: pendingOrder, email: "a@example.com" })),
      status: 400,
      error: "BadRequest",
    },
    { name: "an unknown customer", request: post(() => ({ subscription_id: subscriptionId, customer_id: UNKNOWN })), status: 404 },
    { name: "an unknown member", request: post(() => ({ subscription_id: subscriptionId, member_id: UNKNOWN })), status: 404 },
    { name: "list with neither id", request: () => ({ method: "GET", url: "/v1/customer-seats", token: readToken }), status: 400 },
    {
      name: "list with both ids",
      request: () => ({
        method: "GET",
        url: `/v1/customer-seats?subscription_id=${subscriptionId}&order_id=${pendingOrder}`,
        token: readToken,
      }),
      status: 400,
    },
    {
      name: "list with a non-UUID id",
      request: () => ({ method: "GET", url: "/v1/customer-seats?subscription_id=nope", token: readToken }),
      status: 422,
      loc: ["query", "subscription_id"],
    },
    {
      name: "list of another organization's subscription",
      request: () => ({ method: "GET", url: `/v1/customer-seats?subscription_id=${foreignSubscription}`, token: readToken }),
      status: 404,
    },
    {
      name: "list with seats off",
      request: () => ({ method: "GET", url: `/v1/customer-seats?subscription_id=${offSubscription}`, token: offToken }),
      status: 403,
    },
    {
      name: "list without a token",
      request: () => ({ method: "GET", url: `/v1/customer-seats?subscription_id=${subscriptionId}`, token: null }),
      status: 401,
    },
    {
      name: "revoke of a non-UUID seat",
      request: () => ({ method: "DELETE", url: "/v1/customer-seats/nope", token }),
      status: 422,
      loc: ["path", "seat_id"],
    },
    { name: "revoke of an unknown seat", request: () => ({ method: "DELETE", url: `/v1/customer-seats/${UNKNOWN}`, token }), status: 404 },
    {
      name: "revoke with the read scope",
      request: () => ({ method: "DELETE", url: `/v1/customer-seats/${UNKNOWN}`, token: readToken }),
      status: 403,
    },
    {
      name: "resend of an unknown seat",
      request: () => ({ method: "POST", url: `/v1/customer-seats/${UNKNOWN}/resend`, token }),
      status: 404,
    },
    {
      name: "a claim without a token",
      request: () => ({ method: "POST", url: "/v1/customer-seats/claim", payload: {} }),
      status: 422,
      loc: ["body", "invitation_token"],
    },
    {
      name: "a claim of an unknown token",
      request: () => ({ method: "POST", url: "/v1/customer-seats/claim", payload: { invitation_token: "nope" } }),
      status: 400,
    },
    { name: "claim info of an unknown token", request: () => ({ method: "GET", url: "/v1/customer-seats/claim/nope" }), status: 404 },
  ];
  beforeAll(async () => {
    before = (await seatCount()).n;
  });
  badInputTable(
    () => ctx.request,
    cases,
    async () => expect((await seatCount()).n).toBe(before),
  );
});

describe("who holds a seat-based product's benefits", () => {
  let checkoutToken = "";
  let benefitCounter = 0;
  beforeAll(async () => {
    checkoutToken = await createOrganizationToken(ctx.deps, org.id, ["checkouts:write", "products:write", "members:write"]);
  });
  const seatTiers = JSON.stringify([{ min_seats: 1, max_seats: null, price_per_seat: 500 }]);
  const seatProduct = (recurring: boolean) =>
    createProduct(ctx.deps, org.id, {
      product: recurring ? { name: "Seats", recurring_interval: "month", recurring_interval_count: 1 } : { name: "Seat pack" },
      prices: [{ amount_type: "seat_based", seat_tiers: seatTiers }],
      benefits: [{ type: "license_keys", description: `Seat key ${++benefitCounter}`, properties: { prefix: "SEAT" } }],
    });
  const benefitIds = async (productId: string) =>
    (await ctx.deps.db.selectFrom("product_benefits").select("benefit_id").where("product_id", "=", productId).execute()).map(
      (row) => row.benefit_id,
    );
  const buyerGrants = (customerId: string) =>
    ctx.deps.db.selectFrom("benefit_grants").selectAll().where("customer_id", "=", customerId).where("seat_id", "is", null).execute();
  /** The benefits a seat's holder holds now, by id. */
  const heldBenefits = async (seatId: string) =>
    (await grantsOfSeat(seatId))
      .filter((grant) => grant.granted_at !== null)
      .map((grant) => grant.benefit_id)
      .sort();

  it("grants the buyer of a seat subscription or a one-time seat order nothing: only claimed seats hold the benefits", async () => {
    const [recurring, oneTime] = [await seatProduct(true), await seatProduct(false)];
    const buyer = { customer_email: `seat-buyer-${++mailbox}@example.com` };
    const bought = await buyThroughCheckout(ctx, checkoutToken, recurring.product.id, { buyer, checkout: { seats: 2 } });
    const { checkout } = await buyThroughCheckout(ctx, checkoutToken, oneTime.product.id, { buyer, checkout: { seats: 2 } });
    const order = await ctx.deps.db.selectFrom("orders").selectAll().where("checkout_id", "=", checkout.id).executeTakeFirstOrThrow();
    expect(order.seats).toBe(2);
    expect(await buyerGrants(checkout.customer_id)).toEqual([]);
    expect(await ctx.deps.db.selectFrom("license_keys").select("id").where("customer_id", "=", checkout.customer_id).execute()).toEqual([]);

    const onSubscription = await assign({ subscription_id: bought.checkout.subscription_id, email: newEmail(), immediate_claim: true });
    const onOrder = await assign({ order_id: order.id, email: newEmail(), immediate_claim: true });
    expect(await heldBenefits(onSubscription.json().id)).toEqual(await benefitIds(recurring.product.id));
    expect(await heldBenefits(onOrder.json().id)).toEqual(await benefitIds(oneTime.product.id));
    expect(await buyerGrants(checkout.customer_id)).toEqual([]);
  });

  it("gives a reused seat's new holder grants of their own, and a returning holder their earlier grants back", async () => {
    const { id } = await seatedSubscription(1);
    const first = await assign({ subscription_id: id, email: newEmail(), immediate_claim: true });
    await ctx.request({ method: "DELETE", url: `/v1/customer-seats/${first.json().id}`, token });
    const second = await assign({ subscription_id: id, email: newEmail(), immediate_claim: true });
    expect(second.json()).toMatchObject({ id: first.json().id, status: "claimed" });
    const grants = await grantsOfSeat(first.json().id);
    expect(grants.map((grant) => [grant.member_id, grant.granted_at !== null]).sort()).toEqual(
      [
        [first.json().member_id, false],
        [second.json().member_id, true],
      ].sort(),
    );

    await ctx.request({ method: "DELETE", url: `/v1/customer-seats/${first.json().id}`, token });
    const back = await assign({ subscription_id: id, member_id: first.json().member_id, immediate_claim: true });
    expect(back.statusCode, back.body).toBe(200);
    const restored = (await grantsOfSeat(first.json().id)).find((grant) => grant.member_id === first.json().member_id)!;
    expect(restored.id).toBe(grants.find((grant) => grant.member_id === first.json().member_id)!.id);
    expect(restored.granted_at).not.toBeNull();
  });

  it("re-syncs every claimed seat of a product when its benefits change, pending seats untouched", async () => {
    const recurring = await seatProduct(true);
    const [kept] = await benefitIds(recurring.product.id);
    const [added] = await benefitIds((await seatProduct(false)).product.id);
    const { id } = await seatedSubscription(3, org.id, recurring);
    const order = await createOrder(ctx.deps, org.id, { product: recurring.product, values: { seats: 1 } });
    const holder = (await assign({ subscription_id: id, email: newEmail(), immediate_claim: true })).json();
    const orderHolder = (await assign({ order_id: order.id, email: newEmail(), immediate_claim: true })).json();
    const pending = (await assign({ subscription_id: id, email: newEmail() })).json();
    const setBenefits = async (benefits: string[]) => {
      const response = await ctx.request({
        method: "POST",
        url: `/v1/products/${recurring.product.id}/benefits`,
        token: checkoutToken,
        payload: { benefits },
      });
      expect(response.statusCode, response.body).toBe(200);
    };

    await setBenefits([added!]);
    expect(await heldBenefits(holder.id)).toEqual([added!]);
    expect(await heldBenefits(orderHolder.id)).toEqual([added!]);
    expect(await grantsOfSeat(pending.id)).toEqual([]);
    const [revokedKey] = await ctx.deps.db.selectFrom("license_keys").select(["id", "status"]).where("benefit_id", "=", kept!).execute();
    expect(revokedKey?.status).toBe("revoked");

    await setBenefits([kept!, added!]);
    expect(await heldBenefits(holder.id)).toEqual([kept!, added!].sort());
    const keys = await ctx.deps.db.selectFrom("license_keys").select(["id", "status"]).where("benefit_id", "=", kept!).execute();
    // The holder's own key comes back (the same key), as a subscription's restored grants bring theirs.
    expect(keys.filter((key) => key.status === "granted").map((key) => key.id)).toContain(revokedKey!.id);
  });

  it("re-syncs a subscription's claimed seats when it moves to another seat-based product", async () => {
    const [from, to] = [await seatProduct(true), await seatProduct(true)];
    const { checkout } = await buyThroughCheckout(ctx, checkoutToken, from.product.id, {
      buyer: { customer_email: `switcher-${++mailbox}@example.com` },
      checkout: { seats: 2 },
    });
    const holder = (await assign({ subscription_id: checkout.subscription_id, email: newEmail(), immediate_claim: true })).json();
    const switched = await ctx.request({
      method: "PATCH",
      url: `/v1/subscriptions/${checkout.subscription_id}`,
      token,
      payload: { product_id: to.product.id, proration_behavior: "prorate" },
    });
    expect(switched.statusCode, switched.body).toBe(200);
    expect(await heldBenefits(holder.id)).toEqual(await benefitIds(to.product.id));
    expect(await buyerGrants(checkout.customer_id)).toEqual([]);
  });

  it("revokes the buyer's own grants when a subscription moves onto a seat-based product", async () => {
    const plain = await createProduct(ctx.deps, org.id, {
      product: { name: "Solo", recurring_interval: "month", recurring_interval_count: 1 },
      prices: [{ amount_type: "fixed", price_amount: 900 }],
      benefits: [{ type: "license_keys", description: "Solo key", properties: { prefix: "SOLO" } }],
    });
    const seats = await seatProduct(true);
    const { checkout } = await buyThroughCheckout(ctx, checkoutToken, plain.product.id, {
      buyer: { customer_email: `upgrader-${++mailbox}@example.com` },
    });
    expect((await buyerGrants(checkout.customer_id)).map((grant) => grant.granted_at !== null)).toEqual([true]);
    const switched = await ctx.request({
      method: "PATCH",
      url: `/v1/subscriptions/${checkout.subscription_id}`,
      token,
      payload: { product_id: seats.product.id, proration_behavior: "prorate" },
    });
    expect(switched.statusCode, switched.body).toBe(200);
    expect((await buyerGrants(checkout.customer_id)).map((grant) => grant.granted_at)).toEqual([null]);
  });

  it("revokes a deleted member's seats (claimed and pending) with their grants, by the API and in the portal", async () => {
    const { id, buyer } = await seatedSubscription(3);
    const claimed = (await assign({ subscription_id: id, email: newEmail(), immediate_claim: true })).json();
    const pending = (await assign({ subscription_id: id, email: newEmail() })).json();
    const removed = await ctx.request({
      method: "DELETE",
      url: `/v1/customers/${buyer.id}/members/${claimed.member_id}`,
      token: checkoutToken,
    });
    expect(removed.statusCode, removed.body).toBe(204);
    expect(await seatRow(claimed.id)).toMatchObject({ status: "revoked", member_id: null });
    expect(await heldBenefits(claimed.id)).toEqual([]);
    expect(await seatEvents(claimed.id)).toContain("customer_seat.revoked");
    expect((await seatRow(pending.id)).status).toBe("pending");

    const owner = await createMember(ctx.deps, buyer, "owner", { email: buyer.email });
    const ownerToken = await createMemberSessionToken(ctx.deps, buyer.id, owner.id);
    const gone = await ctx.request({ method: "DELETE", url: `/v1/customer-portal/members/${pending.member_id}`, token: ownerToken });
    expect(gone.statusCode, gone.body).toBe(204);
    expect(await seatRow(pending.id)).toMatchObject({ status: "revoked", invitation_token_hash: null });
    expect(await seatEvents(pending.id)).toContain("customer_seat.revoked");
  });
});
