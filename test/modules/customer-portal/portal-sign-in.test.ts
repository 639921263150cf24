import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestContext, type TestContext } from "../../helpers/context.ts";
import { badInputTable } from "../../helpers/bad-inputs.ts";
import { createCustomer, createOrganization } from "../../helpers/factories.ts";
import { startMailingContext, stopMailingContext, type TestSmtpServer } from "../../helpers/smtp-server.ts";
import { createMember, enableMembers } from "../customers/member-helpers.ts";
import { runEmailJobs } from "../emails/email-helpers.ts";
import { codeFromLatestEmail, mailsTo } from "./portal-sign-in-helpers.ts";

/** Signing in to the portal by email code: `…/customer-session/request` then `…/authenticate`, with a real SMTP server. */
let smtp: TestSmtpServer;
let ctx: TestContext;
let org: { id: string; name: string; slug: string };
let clientNumber = 0;

beforeAll(async () => {
  ({ ctx, smtp } = await startMailingContext());
  org = await createOrganization(ctx.deps, `Tea <b>&</b> Co ${Date.now()}`);
});
afterAll(() => stopMailingContext({ ctx, smtp }));

/** Each test its own client address, so the per-client limits of one never reach another. */
const newClient = () => `10.0.${Math.floor(++clientNumber / 250)}.${clientNumber % 250}`;

const ask = (payload: unknown, remoteAddress = newClient()) =>
  ctx.request({ method: "POST", url: "/v1/customer-portal/customer-session/request", payload: payload as object, remoteAddress });
const enter = (code: unknown, remoteAddress = newClient()) =>
  ctx.request({ method: "POST", url: "/v1/customer-portal/customer-session/authenticate", payload: { code }, remoteAddress });

const signInRows = () => ctx.deps.db.selectFrom("portal_sign_ins").selectAll().execute();
const INVALID = { error: "CustomerSessionCodeInvalidOrExpired", detail: "This customer session code is invalid or has expired." };

describe("requesting a sign-in code", () => {
  it("emails a 6-character code that signs in once as the customer, for an hour, and stores only its hash", async () => {
    const customer = await createCustomer(ctx.deps, org.id, { email: "ada@example.com", name: "Ada", locale: null });
    const response = await ask({ email: "ADA@example.com", organization_id: org.id });
    expect(response.statusCode).toBe(202);
    expect(response.body).toBe("null");

    const code = await codeFromLatestEmail(ctx, smtp, "ada@example.com");
    const mail = mailsTo(smtp, "ada@example.com").at(-1)!;
    expect(mail.subject).toBe(`Access your ${org.name} purchases`);
    expect(mail.from?.value).toEqual([{ address: "mail@shop.example", name: org.name }]);
    expect(mail.headers.has("list-unsubscribe")).toBe(false);
    const html = String(mail.html);
    for (const part of [html, mail.text!]) {
      expect(part).toContain(code);
      expect(part).toContain("expires in 15 minutes");
      expect(part).toContain(`https://checkout.test/${org.slug}/portal/sign-in/code`);
      expect(part).not.toMatch(/polar_(cst|mst|oat|pat)_/);
    }
    expect(html).toContain("Tea &lt;b&gt;&amp;&lt;/b&gt; Co");
    expect(html).not.toContain("<b>&</b>");

    const [row] = (await signInRows()).filter((r) => r.customer_id === customer.id);
    expect(row).toMatchObject({ kind: "code", email: "ada@example.com", failed_attempts: 0 });
    expect(row!.secret_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(row)).not.toContain(code);
    expect(row!.expires_at.getTime() - row!.created_at.getTime()).toBe(15 * 60 * 1000);

    const signedIn = await enter(code);
    expect(signedIn.statusCode, signedIn.body).toBe(200);
    const { token } = signedIn.json<{ token: string }>();
    expect(token).toMatch(/^polar_cst_/);
    const me = await ctx.request({ method: "GET", url: "/v1/customer-portal/customer-session/introspect", token });
    expect(me.statusCode).toBe(200);
    const ttl = new Date(me.json<{ expires_at: string }>().expires_at).getTime() - ctx.deps.now().getTime();
    expect(Math.round(ttl / 60_000)).toBe(60);
    const user = await ctx.request({ method: "GET", url: "/v1/customer-portal/customer-session/user", token });
    expect(user.json()).toMatchObject({ type: "customer", customer_id: customer.id, email: "ada@example.com" });

    // Single use.
    const again = await enter(code);
    expect(again.statusCode).toBe(401);
    expect(again.json()).toEqual(INVALID);
  });

  it("answers 202 and stores and sends nothing for an unknown organization, email or customer_id", async () => {
    const known = await createCustomer(ctx.deps, org.id, { email: "known@example.com" });
    const before = (await signInRows()).length;
    const sent = smtp.received.length;
    for (const payload of [
      { email: "nobody@example.com", organization_id: org.id },
      { email: "known@example.com", organization_id: "6f1c1a37-6c43-4c55-9d3d-5a4f2a0b7e11" },
      { email: "known@example.com", organization_id: org.id, customer_id: "6f1c1a37-6c43-4c55-9d3d-5a4f2a0b7e11" },
      { email: known.email, organization_id: (await createOrganization(ctx.deps)).id },
    ]) {
      const response = await ask(payload);
      expect(response.statusCode, JSON.stringify(payload)).toBe(202);
      expect(response.body).toBe("null");
    }
    await runEmailJobs(ctx);
    expect((await signInRows()).length).toBe(before);
    expect(smtp.received.length).toBe(sent);
  });

  it("asks which customer when a member of several has the email (409), then sends to the one named", async () => {
    const team = await createOrganization(ctx.deps);
    await enableMembers(ctx.deps, team.id);
    const first = await createCustomer(ctx.deps, team.id, { name: "Twin One" });
    const second = await createCustomer(ctx.deps, team.id, { name: null });
    await createMember(ctx.deps, first, "owner", { email: "twin@example.com" });
    await createMember(ctx.deps, second, "billing_manager", { email: "Twin@example.com" });
    const response = await ask({ email: "twin@example.com", organization_id: team.id });
    expect(response.statusCode).toBe(409);
    expect(response.json()).toEqual({
      error: "customer_selection_required",
      detail: "Multiple customers found for this email. Please select one.",
      customers: [
        { id: first.id, name: "Twin One" },
        { id: second.id, name: null },
      ],
    });
    expect((await ask({ email: "twin@example.com", organization_id: team.id, customer_id: second.id })).statusCode).toBe(202);
    const code = await codeFromLatestEmail(ctx, smtp, "Twin@example.com");
    const { token } = (await enter(code)).json<{ token: string }>();
    const user = await ctx.request({ method: "GET", url: "/v1/customer-portal/customer-session/user", token });
    expect(user.json()).toMatchObject({ customer_id: second.id });
  });

  it("writes the email in the customer's language", async () => {
    await createCustomer(ctx.deps, org.id, { email: "jean@example.com", locale: "fr-FR" });
    expect((await ask({ email: "jean@example.com", organization_id: org.id })).statusCode).toBe(202);
    const code = await codeFromLatestEmail(ctx, smtp, "jean@example.com");
    const mail = mailsTo(smtp, "jean@example.com").at(-1)!;
    expect(mail.subject).toBe(`Accédez à vos achats ${org.name}`);
    expect(mail.text).toContain("Le code expire dans 15 minutes");
    expect(mail.text).toContain(code);
    expect(String(mail.html)).toContain('<html lang="fr">');
  });

  it("opens a member session in an organization of member sessions, for the member with the email", async () => {
    const team = await createOrganization(ctx.deps);
    await enableMembers(ctx.deps, team.id);
    const customer = await createCustomer(ctx.deps, team.id, { email: "owner@example.com" });
    await createMember(ctx.deps, customer, "owner", { email: "owner@example.com" });
    expect((await ask({ email: "owner@example.com", organization_id: team.id })).statusCode).toBe(202);
    const code = await codeFromLatestEmail(ctx, smtp, "owner@example.com");
    const { token } = (await enter(code)).json<{ token: string }>();
    expect(token).toMatch(/^polar_mst_/);
  });
});

describe("entering a code", () => {
  it("refuses an expired code", async () => {
    await createCustomer(ctx.deps, org.id, { email: "late@example.com" });
    await ask({ email: "late@example.com", organization_id: org.id });
    const code = await codeFromLatestEmail(ctx, smtp, "late@example.com");
    ctx.clock.advance(15 * 60 * 1000 + 1000);
    const response = await enter(code);
    expect(response.statusCode).toBe(401);
    expect(response.json()).toEqual(INVALID);
  });

  it("voids the codes a client asked for after 5 wrong codes from it; another client's codes still work", async () => {
    await createCustomer(ctx.deps, org.id, { email: "guess@example.com" });
    await createCustomer(ctx.deps, org.id, { email: "other@example.com" });
    const client = newClient();
    await ask({ email: "guess@example.com", organization_id: org.id }, client);
    const code = await codeFromLatestEmail(ctx, smtp, "guess@example.com");
    await ask({ email: "other@example.com", organization_id: org.id });
    const otherCode = await codeFromLatestEmail(ctx, smtp, "other@example.com");
    for (let attempt = 0; attempt < 5; attempt += 1) {
      const wrong = await enter(attempt % 2 ? "ZZZZZ9" : "zzzzzz", client);
      expect(wrong.statusCode).toBe(401);
      expect(wrong.json()).toEqual(INVALID);
    }
    const voided = await enter(code, client);
    expect(voided.statusCode).toBe(401);
    expect((await enter(otherCode)).statusCode).toBe(200);
  });

  it("rate limits asking per email and per client address (429 with Retry-After), after validation", async () => {
    const limited = await createTestContext({
      env: { PORTAL_SIGN_IN_RATE_LIMIT_PER_CLIENT: "4", PORTAL_SIGN_IN_RATE_LIMIT_PER_EMAIL: "2" },
    });
    try {
      const send = (email: string, remoteAddress: string) =>
        limited.request({
          method: "POST",
          url: "/v1/customer-portal/customer-session/request",
          payload: { email, organization_id: org.id },
          remoteAddress,
        });
      expect((await send("a@example.com", "10.9.0.1")).statusCode).toBe(202);
      expect((await send("A@example.com", "10.9.0.2")).statusCode).toBe(202);
      const perEmail = await send("a@example.com", "10.9.0.3");
      expect(perEmail.statusCode).toBe(429);
      expect(perEmail.headers["retry-after"]).toBeDefined();
      expect(perEmail.json()).toMatchObject({ error: "TooManyRequests" });
      for (const email of ["b@example.com", "c@example.com", "d@example.com"]) expect((await send(email, "10.9.0.4")).statusCode).toBe(202);
      // A 422 is refused before any counting.
      expect((await send("not-an-email", "10.9.0.4")).statusCode).toBe(422);
      expect((await send("e@example.com", "10.9.0.4")).statusCode).toBe(202);
      expect((await send("f@example.com", "10.9.0.4")).statusCode).toBe(429);
      const authenticate = () =>
        limited.request({
          method: "POST",
          url: "/v1/customer-portal/customer-session/authenticate",
          payload: { code: "AAAAAA" },
          remoteAddress: "10.9.0.5",
        });
      for (let attempt = 0; attempt < 4; attempt += 1) expect((await authenticate()).statusCode).toBe(401);
      expect((await authenticate()).statusCode).toBe(429);
    } finally {
      await limited.close();
    }
  });
});

describe("bad inputs", () => {
  const unchanged = async () => {
    expect(await ctx.deps.db.selectFrom("portal_sign_ins").select("id").where("email", "=", "bad@example.com").execute()).toEqual([]);
  };
  const request = (payload: unknown) => () => ({
    method: "POST" as const,
    url: "/v1/customer-portal/customer-session/request",
    payload: payload as object,
    remoteAddress: newClient(),
  });
  const authenticate = (payload: unknown) => () => ({
    method: "POST" as const,
    url: "/v1/customer-portal/customer-session/authenticate",
    payload: payload as object,
    remoteAddress: newClient(),
  });
  badInputTable(
    () => ctx.request,
    [
      {
        name: "a malformed email",
        request: () => request({ email: "bad@", organization_id: org.id })(),
        status: 422,
        loc: ["body", "email"],
      },
      {
        name: "an email of another type",
        request: () => request({ email: 42, organization_id: org.id })(),
        status: 422,
        loc: ["body", "email"],
      },
      { name: "a missing email", request: () => request({ organization_id: org.id })(), status: 422, loc: ["body", "email"] },
      {
        name: "an overlong email",
        request: () => request({ email: `${"a".repeat(320)}@example.com`, organization_id: org.id })(),
        status: 422,
        loc: ["body", "email"],
      },
      { name: "a missing organization_id", request: request({ email: "bad@example.com" }), status: 422, loc: ["body", "organization_id"] },
      {
        name: "a non-UUID organization_id",
        request: request({ email: "bad@example.com", organization_id: "org_1" }),
        status: 422,
        loc: ["body", "organization_id"],
      },
      {
        name: "a non-UUID customer_id",
        request: () => request({ email: "bad@example.com", organization_id: org.id, customer_id: 7 })(),
        status: 422,
        loc: ["body", "customer_id"],
      },
      { name: "a missing code", request: authenticate({}), status: 422, loc: ["body", "code"] },
      { name: "a code of another type", request: authenticate({ code: 123456 }), status: 422, loc: ["body", "code"] },
      { name: "an overlong code", request: authenticate({ code: "A".repeat(65) }), status: 422, loc: ["body", "code"] },
      { name: "a wrong code", request: authenticate({ code: "AAAAAA" }), status: 401, error: "CustomerSessionCodeInvalidOrExpired" },
      { name: "an empty code", request: authenticate({ code: "" }), status: 401, error: "CustomerSessionCodeInvalidOrExpired" },
    ],
    unchanged,
  );
});
