import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { badInputTable, type BadInputCase } from "../../helpers/bad-inputs.ts";
import type { TestContext } from "../../helpers/context.ts";
import { createCustomer, createCustomerSessionToken, createOrganization, createOrganizationToken } from "../../helpers/factories.ts";
import { expectReferenceResponse } from "../../helpers/reference.ts";
import { startMailingContext, stopMailingContext, type TestSmtpServer } from "../../helpers/smtp-server.ts";
import { createMember, enableMembers } from "../customers/member-helpers.ts";
import { runEmailJobs } from "../emails/email-helpers.ts";
import { mailsTo } from "./portal-sign-in-helpers.ts";

/** A portal customer changing their email: `…/customers/me/email-update/{request,check,verify}`, with a real SMTP server. */
let smtp: TestSmtpServer;
let ctx: TestContext;
let org: { id: string; name: string; slug: string };
let clientNumber = 0;
const PER_CLIENT = 12;

beforeAll(async () => {
  ({ ctx, smtp } = await startMailingContext({ PORTAL_SIGN_IN_RATE_LIMIT_PER_CLIENT: String(PER_CLIENT) }));
  org = await allowingOrganization();
});
afterAll(() => stopMailingContext({ ctx, smtp }));

async function allowingOrganization(allow = true) {
  const organization = await createOrganization(ctx.deps);
  const settings = {
    usage: { show: true },
    subscription: { update_seats: true, update_plan: true },
    customer: { allow_email_change: allow },
  };
  await ctx.deps.db
    .updateTable("organizations")
    .set({ customer_portal_settings: JSON.stringify(settings) })
    .where("id", "=", organization.id)
    .execute();
  return organization;
}

/** Each request its own client address, so the shared per-client limit is only reached where a test means to. */
const newClient = () => `10.1.${Math.floor(++clientNumber / 250)}.${clientNumber % 250}`;
const BASE = "/v1/customer-portal/customers/me/email-update";
const ask = (token: string | null, payload: unknown) =>
  ctx.request({ method: "POST", url: `${BASE}/request`, token, payload: payload as object, remoteAddress: newClient() });
const check = (token: string) =>
  ctx.request({ method: "GET", url: `${BASE}/check?token=${encodeURIComponent(token)}`, remoteAddress: newClient() });
const verify = (payload: unknown) =>
  ctx.request({ method: "POST", url: `${BASE}/verify`, payload: payload as object, remoteAddress: newClient() });

const requestsOf = (customerId: string) =>
  ctx.deps.db.selectFrom("customer_email_updates").selectAll().where("customer_id", "=", customerId).execute();
const storedCustomer = (id: string) => ctx.deps.db.selectFrom("customers").selectAll().where("id", "=", id).executeTakeFirstOrThrow();

/** Sends what is queued and reads the token of the newest verification email to the address, as its reader would. */
async function tokenFromEmail(address: string): Promise<string> {
  await runEmailJobs(ctx);
  const text = mailsTo(smtp, address).at(-1)?.text ?? "";
  const token = /[?&]token=(polar_cev_[A-Za-z0-9]+)/.exec(text)?.[1];
  if (!token) throw new Error(`no verification link in the email to ${address}: ${text}`);
  return token;
}

async function customerWithSession(overrides: { email?: string; locale?: string | null } = {}, organizationId = org.id) {
  const customer = await createCustomer(ctx.deps, organizationId, { locale: null, ...overrides });
  return { customer, session: await createCustomerSessionToken(ctx.deps, customer.id) };
}

const INVALID = { error: "CustomerEmailUpdateInvalidOrExpired", detail: "This email update request is invalid or has expired." };

describe("changing a portal customer's email", () => {
  it("emails a 30-minute link to the new address, then changes the email, tells the old one and opens a new session", async () => {
    const { customer, session } = await customerWithSession({ email: "old@example.com" });
    const response = await ask(session, { email: "New@example.com" });
    expect(response.statusCode, response.body).toBe(202);
    expectReferenceResponse("customer_portal:customers:request_email_update", 202, response.json());

    const token = await tokenFromEmail("New@example.com");
    const mail = mailsTo(smtp, "New@example.com").at(-1)!;
    expect(mail.subject).toBe("Verify your new email address");
    expect(mail.from?.value).toEqual([{ address: "mail@shop.example", name: org.name }]);
    expect(mail.headers.has("list-unsubscribe")).toBe(false);
    expect(mail.text).toContain(`https://checkout.test/${org.slug}/portal/verify-email?token=${token}`);
    expect(mail.text).toContain("expires in 30 minutes");
    expect(mailsTo(smtp, "old@example.com")).toEqual([]);

    const [row] = await requestsOf(customer.id);
    expect(row).toMatchObject({ email: "New@example.com", organization_id: org.id });
    expect(row!.token_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(row)).not.toContain(token);
    expect(row!.expires_at.getTime() - row!.created_at.getTime()).toBe(30 * 60 * 1000);
    expect((await storedCustomer(customer.id)).email).toBe("old@example.com");

    const checked = await check(token);
    expect(checked.statusCode).toBe(204);
    expect(checked.body).toBe("");

    const webhooksBefore = await customerUpdatedEvents();
    const verified = await verify({ token });
    expect(verified.statusCode, verified.body).toBe(200);
    const body = verified.json<{ token: string }>();
    expectReferenceResponse("customer_portal:customers:verify_email_update", 200, body);
    expect(Object.keys(body)).toEqual(["token"]);
    expect(body.token).toMatch(/^polar_cst_/);
    expect(await storedCustomer(customer.id)).toMatchObject({ email: "New@example.com", email_verified: true });
    expect(await customerUpdatedEvents()).toBe(webhooksBefore + 1);
    expect(await requestsOf(customer.id)).toEqual([]);

    const me = await ctx.request({ method: "GET", url: "/v1/customer-portal/customers/me", token: body.token });
    expect(me.json()).toMatchObject({ id: customer.id, email: "New@example.com", email_verified: true });
    // The session that asked keeps working.
    expect((await ctx.request({ method: "GET", url: "/v1/customer-portal/customers/me", token: session })).statusCode).toBe(200);

    await runEmailJobs(ctx);
    const notice = mailsTo(smtp, "old@example.com").at(-1)!;
    expect(notice.subject).toBe("Your email address has been changed");
    expect(notice.text).toContain("New@example.com");
    expect(notice.text).not.toContain(token);

    // Used once.
    expect((await verify({ token })).json()).toEqual(INVALID);
    expect((await check(token)).statusCode).toBe(401);
  });

  it("writes the verification email in the customer's language", async () => {
    const { session } = await customerWithSession({ locale: "fr-FR" });
    expect((await ask(session, { email: "jeanne@example.com" })).statusCode).toBe(202);
    const token = await tokenFromEmail("jeanne@example.com");
    const mail = mailsTo(smtp, "jeanne@example.com").at(-1)!;
    expect(mail.subject).toBe("Vérifiez votre nouvelle adresse e-mail");
    expect(mail.text).toContain("Le lien expire dans 30 minutes");
    expect(mail.text).toContain(token);
    expect(String(mail.html)).toContain('<html lang="fr">');
  });

  it("replaces older pending requests: only the newest token works", async () => {
    const { customer, session } = await customerWithSession();
    await ask(session, { email: "first@example.com" });
    const first = await tokenFromEmail("first@example.com");
    await ask(session, { email: "second@example.com" });
    const second = await tokenFromEmail("second@example.com");
    expect(await requestsOf(customer.id)).toHaveLength(1);
    expect((await check(first)).json()).toEqual(INVALID);
    expect((await verify({ token: first })).statusCode).toBe(401);
    expect((await check(second)).statusCode).toBe(204);
  });

  it("refuses an expired token (after 30 minutes)", async () => {
    const { customer, session } = await customerWithSession({ email: "late@example.com" });
    await ask(session, { email: "later@example.com" });
    const token = await tokenFromEmail("later@example.com");
    ctx.clock.advance(30 * 60 * 1000 + 1000);
    try {
      expect((await check(token)).json()).toEqual(INVALID);
      expect((await verify({ token })).statusCode).toBe(401);
    } finally {
      ctx.clock.advance(-(30 * 60 * 1000 + 1000));
    }
    expect((await storedCustomer(customer.id)).email).toBe("late@example.com");
  });

  it("discards the request when another customer took the address meanwhile (422 at the token)", async () => {
    const { customer, session } = await customerWithSession({ email: "slow@example.com" });
    await ask(session, { email: "contested@example.com" });
    const token = await tokenFromEmail("contested@example.com");
    await createCustomer(ctx.deps, org.id, { email: "CONTESTED@example.com" });
    const response = await verify({ token });
    expect(response.statusCode).toBe(422);
    expect(response.json().detail).toEqual([
      expect.objectContaining({ loc: ["body", "token"], msg: "Value error, This email address is already in use.", type: "value_error" }),
    ]);
    expect((await storedCustomer(customer.id)).email).toBe("slow@example.com");
    expect(await requestsOf(customer.id)).toEqual([]);
    expect((await check(token)).statusCode).toBe(401);
  });

  it("follows with the owner member and opens a member session where the organization runs member sessions", async () => {
    const team = await allowingOrganization();
    await enableMembers(ctx.deps, team.id);
    const customer = await createCustomer(ctx.deps, team.id, { email: "solo@example.com" });
    const owner = await createMember(ctx.deps, customer, "owner", { email: "solo@example.com" });
    const session = await createCustomerSessionToken(ctx.deps, customer.id);
    expect((await ask(session, { email: "solo.new@example.com" })).statusCode).toBe(202);
    const verified = await verify({ token: await tokenFromEmail("solo.new@example.com") });
    expect(verified.statusCode, verified.body).toBe(200);
    expect(verified.json().token).toMatch(/^polar_mst_/);
    const member = await ctx.deps.db.selectFrom("members").selectAll().where("id", "=", owner.id).executeTakeFirstOrThrow();
    expect(member.email).toBe("solo.new@example.com");
  });

  it("limits the three routes together per client address (429)", async () => {
    const { session } = await customerWithSession();
    const remoteAddress = "10.200.0.1";
    const statuses: number[] = [];
    for (let attempt = 0; attempt < PER_CLIENT / 2; attempt += 1) {
      statuses.push((await ctx.request({ method: "GET", url: `${BASE}/check?token=polar_cev_nope`, remoteAddress })).statusCode);
      statuses.push((await ctx.request({ method: "POST", url: `${BASE}/verify`, payload: { token: "x" }, remoteAddress })).statusCode);
    }
    expect(statuses.every((status) => status === 401)).toBe(true);
    const limited = await ctx.request({
      method: "POST",
      url: `${BASE}/request`,
      token: session,
      payload: { email: "z@example.com" },
      remoteAddress,
    });
    expect(limited.statusCode).toBe(429);
    expect(limited.headers["retry-after"]).toBeDefined();
  });
});

const customerUpdatedEvents = async () =>
  (
    await ctx.deps.db
      .selectFrom("webhook_events")
      .select("id")
      .where("organization_id", "=", org.id)
      .where("type", "=", "customer.updated")
      .execute()
  ).length;

describe("POST …/email-update/request: refusals", () => {
  let session: string;
  let customerId: string;
  let teamSession: string;
  let closedSession: string;
  let orgToken: string;
  let emailsBefore = 0;
  const emailCount = async () => (await ctx.deps.db.selectFrom("emails").select("id").execute()).length;
  beforeAll(async () => {
    const own = await customerWithSession({ email: "me@example.com" });
    session = own.session;
    customerId = own.customer.id;
    await createCustomer(ctx.deps, org.id, { email: "someone.else@example.com" });
    const team = await createCustomer(ctx.deps, org.id, { type: "team" });
    teamSession = await createCustomerSessionToken(ctx.deps, team.id);
    closedSession = (await customerWithSession({}, (await allowingOrganization(false)).id)).session;
    orgToken = await createOrganizationToken(ctx.deps, org.id, ["customer_portal:write", "customers:write"]);
    emailsBefore = await emailCount();
  });
  const send =
    (payload: unknown, as: () => string | null = () => session): BadInputCase["request"] =>
    () => ({ method: "POST", url: `${BASE}/request`, token: as(), payload: payload as object, remoteAddress: newClient() });

  badInputTable(
    () => ctx.request,
    [
      { name: "no session", request: send({ email: "a@example.com" }, () => null), status: 401 },
      { name: "an organization token", request: send({ email: "a@example.com" }, () => orgToken), status: 401 },
      { name: "a malformed session token", request: send({ email: "a@example.com" }, () => "polar_cst_nope"), status: 401 },
      {
        name: "an organization that does not allow it",
        request: send({ email: "a@example.com" }, () => closedSession),
        status: 403,
        error: "NotPermitted",
      },
      { name: "a malformed email", request: send({ email: "not-an-email" }), status: 422, loc: ["body", "email"] },
      { name: "a missing email", request: send({}), status: 422, loc: ["body", "email"] },
      { name: "an email of the wrong type", request: send({ email: 42 }), status: 422, loc: ["body", "email"] },
      { name: "an overlong email", request: send({ email: `${"a".repeat(320)}@example.com` }), status: 422, loc: ["body", "email"] },
      { name: "a team customer", request: send({ email: "team.new@example.com" }, () => teamSession), status: 422, loc: ["body", "email"] },
      { name: "the current email (any case)", request: send({ email: "ME@example.com" }), status: 422, loc: ["body", "email"] },
      { name: "another customer's email", request: send({ email: "Someone.Else@example.com" }), status: 422, loc: ["body", "email"] },
    ],
    async () => {
      expect(await requestsOf(customerId)).toEqual([]);
      expect(await emailCount()).toBe(emailsBefore);
    },
  );

  it("says why an organization refuses", async () => {
    const response = await ctx.request({
      method: "POST",
      url: `${BASE}/request`,
      token: closedSession,
      payload: { email: "b@example.com" },
      remoteAddress: newClient(),
    });
    expect(response.json()).toEqual({ error: "NotPermitted", detail: "Email changes are not enabled for this organization." });
  });
});

describe("GET …/email-update/check and POST …/verify: bad input", () => {
  const checkWith =
    (query: string): BadInputCase["request"] =>
    () => ({ method: "GET", url: `${BASE}/check${query}`, remoteAddress: newClient() });
  const verifyWith =
    (payload: unknown): BadInputCase["request"] =>
    () => ({
      method: "POST",
      url: `${BASE}/verify`,
      payload: payload as object,
      remoteAddress: newClient(),
    });
  badInputTable(
    () => ctx.request,
    [
      { name: "check without a token", request: checkWith(""), status: 422, loc: ["query", "token"] },
      {
        name: "check with an unknown token",
        request: checkWith("?token=polar_cev_unknown"),
        status: 401,
        error: "CustomerEmailUpdateInvalidOrExpired",
      },
      { name: "check with an overlong token", request: checkWith(`?token=${"x".repeat(500)}`), status: 422, loc: ["query", "token"] },
      { name: "verify without a token", request: verifyWith({}), status: 422, loc: ["body", "token"] },
      { name: "verify with a token of the wrong type", request: verifyWith({ token: 12 }), status: 422, loc: ["body", "token"] },
      {
        name: "verify with an unknown token",
        request: verifyWith({ token: "polar_cev_unknown" }),
        status: 401,
        error: "CustomerEmailUpdateInvalidOrExpired",
      },
      {
        name: "verify with a customer session token",
        request: verifyWith({ token: "polar_cst_abc" }),
        status: 401,
        error: "CustomerEmailUpdateInvalidOrExpired",
      },
    ],
  );
});
