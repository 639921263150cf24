import type { InjectOptions, LightMyRequestResponse } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccessTokenService } from "../../../src/modules/organizations/access-tokens.service.ts";
import { SESSION_LIFETIME_MS, sealSession } from "../../../src/modules/dashboard-page/dashboard-session.ts";
import { hashToken } from "../../../src/values/tokens.ts";
import { badInputTable, expectErrorBody, type BadInputCase } from "../../helpers/bad-inputs.ts";
import type { TestContext } from "../../helpers/context.ts";
import { createOrganization, createOrganizationToken, openOrganizationContext, tamperLastCharacter } from "../../helpers/factories.ts";

/** The dashboard's sign-in, session cookie, CSRF token and API proxy, over HTTP. */
describe("dashboard session and proxy", () => {
  let ctx: TestContext;
  let orgId: string;
  let otherOrgId: string;
  let writer: string;
  let reader: string;
  let otherToken: string;
  const ownerToken = "polar_pat_dashboard-owner-token-of-the-tests";

  beforeAll(async () => {
    const opened = await openOrganizationContext(
      ["organizations:read", "products:read", "products:write", "metrics:read"],
      ["organizations:read", "products:read"],
    );
    ({ ctx } = opened);
    orgId = opened.org.id;
    [writer, reader] = opened.tokens;
    otherOrgId = (await createOrganization(ctx.deps)).id;
    otherToken = await createOrganizationToken(ctx.deps, otherOrgId, ["organizations:read", "products:read", "products:write"]);
    await createAccessTokenService(ctx.deps).ensureOwnerToken(ownerToken);
  });
  afterAll(async () => ctx?.close());

  const inject = (options: InjectOptions) => ctx.app.inject(options);
  const cookieOf = (response: LightMyRequestResponse): string => String(response.headers["set-cookie"]).split(";")[0]!;
  const pageData = (html: string) => JSON.parse(/id="page-data">(.*?)<\/script>/s.exec(html)![1]!) as Record<string, unknown>;

  async function signIn(token: string): Promise<{ cookie: string; csrf: string }> {
    const response = await inject({ method: "POST", url: "/dashboard/session", payload: { token } });
    expect(response.statusCode, response.body).toBe(201);
    const cookie = cookieOf(response);
    const data = pageData((await inject({ method: "GET", url: "/dashboard/", headers: { cookie } })).body);
    return { cookie, csrf: data.csrfToken as string };
  }

  const productCount = async (organizationId: string) =>
    Number(
      (
        await ctx.deps.db
          .selectFrom("products")
          .select((e) => e.fn.countAll().as("n"))
          .where("organization_id", "=", organizationId)
          .executeTakeFirstOrThrow()
      ).n,
    );

  it("serves the sign-in form without a session, under a CSP without inline script", async () => {
    const response = await inject({ method: "GET", url: "/dashboard/" });
    expect(response.statusCode).toBe(200);
    expect(pageData(response.body)).toEqual({ view: "sign-in", reason: null });
    const csp = String(response.headers["content-security-policy"]);
    expect(csp).toMatch(/script-src 'sha256-[^']+'/);
    expect(csp).not.toContain("unsafe-inline");
    expect(csp).toContain("frame-ancestors 'none'");
    expect((await inject({ method: "GET", url: "/dashboard" })).statusCode).toBe(200);
  });

  it("signs in with an organization token: an HttpOnly, SameSite=Strict cookie on /dashboard holding no readable token", async () => {
    const response = await inject({ method: "POST", url: "/dashboard/session", payload: { token: writer } });
    expect(response.statusCode).toBe(201);
    expect(response.json()).toMatchObject({ organization_id: orgId, organizations: [{ id: orgId }] });
    const setCookie = String(response.headers["set-cookie"]);
    expect(setCookie).toMatch(/^dashboard_session=v1\.[A-Za-z0-9_-]+; Path=\/dashboard; HttpOnly; SameSite=Strict; Max-Age=43200$/);
    expect(setCookie).not.toContain(writer);
    const page = await inject({ method: "GET", url: "/dashboard/orders", headers: { cookie: cookieOf(response) } });
    const data = pageData(page.body);
    expect(data).toMatchObject({ view: "app", organization: { id: orgId }, organizationCount: 1 });
    expect(data.signedInAs).toEqual({
      kind: "organization",
      scopes: expect.arrayContaining(["products:write", "metrics:read"]),
      organizationId: orgId,
    });
    expect(page.body).not.toContain(writer);
  });

  it("forwards reads and CSRF-checked writes to the public API with the session's token and its scopes", async () => {
    const { cookie, csrf } = await signIn(writer);
    const before = await productCount(orgId);
    const created = await inject({
      method: "POST",
      url: "/dashboard/api/products/",
      headers: { cookie, "x-csrf-token": csrf },
      payload: { name: "<img src=x onerror=alert(1)>", prices: [{ amount_type: "fixed", price_amount: 1500, price_currency: "usd" }] },
    });
    expect(created.statusCode, created.body).toBe(201);
    expect(created.json()).toMatchObject({ name: "<img src=x onerror=alert(1)>", organization_id: orgId });
    expect(await productCount(orgId)).toBe(before + 1);
    const listed = await inject({ method: "GET", url: "/dashboard/api/products/?limit=1&sorting=-created_at", headers: { cookie } });
    expect(listed.statusCode).toBe(200);
    expect(listed.headers["cache-control"]).toBe("no-store");
    expect(listed.json().items[0].id).toBe(created.json().id);
    // The read-only token's session: the API refuses the write for its scopes.
    const readOnly = await signIn(reader);
    const refused = await inject({
      method: "POST",
      url: "/dashboard/api/products/",
      headers: { cookie: readOnly.cookie, "x-csrf-token": readOnly.csrf },
      payload: { name: "x", prices: [] },
    });
    expect(refused.statusCode).toBe(403);
    expect(refused.json().error).toBe("insufficient_scope");
  });

  it("lets an owner's token choose among the organizations it sees", async () => {
    const response = await inject({ method: "POST", url: "/dashboard/session", payload: { token: ownerToken } });
    expect(response.statusCode).toBe(201);
    expect(response.json().organization_id).toBeNull();
    const cookie = cookieOf(response);
    const chooser = pageData((await inject({ method: "GET", url: "/dashboard/", headers: { cookie } })).body);
    expect(chooser.view).toBe("choose-organization");
    const ids = (chooser.organizations as { id: string }[]).map((o) => o.id);
    expect(ids).toEqual(expect.arrayContaining([orgId, otherOrgId]));
    const chosen = await inject({
      method: "POST",
      url: "/dashboard/session/organization",
      headers: { cookie, "x-csrf-token": chooser.csrfToken as string },
      payload: { organization_id: otherOrgId },
    });
    expect(chosen.statusCode).toBe(204);
    const app = pageData((await inject({ method: "GET", url: "/dashboard/", headers: { cookie: cookieOf(chosen) } })).body);
    expect(app).toMatchObject({ view: "app", organization: { id: otherOrgId }, signedInAs: { kind: "user", scopes: "all" } });
    expect(app.csrfToken).toBe(chooser.csrfToken);
  });

  it("ends the session when its token is revoked, and after its lifetime", async () => {
    const token = await createOrganizationToken(ctx.deps, orgId, ["organizations:read"]);
    const { cookie } = await signIn(token);
    await ctx.deps.db.deleteFrom("organization_access_tokens").where("token_hash", "=", hashToken(ctx.deps.secret, token)).execute();
    ctx.clock.advance(60_000);
    const page = await inject({ method: "GET", url: "/dashboard/", headers: { cookie } });
    expect(pageData(page.body)).toEqual({ view: "sign-in", reason: "expired" });
    expect(String(page.headers["set-cookie"])).toContain("Max-Age=0");
    const proxied = await inject({ method: "GET", url: "/dashboard/api/products/", headers: { cookie } });
    expect(proxied.statusCode).toBe(401);
    expect(proxied.json()).toEqual({ error: "SessionEnded", detail: expect.any(String) });

    const old = sealSession(ctx.deps.secret, {
      token: writer,
      organizationId: orgId,
      nonce: "n",
      issuedAtMs: ctx.deps.now().getTime() - SESSION_LIFETIME_MS - 1,
    });
    expect(pageData((await inject({ method: "GET", url: "/dashboard/", headers: { cookie: `dashboard_session=${old}` } })).body).view).toBe(
      "sign-in",
    );
  });

  it("signs out: the cookie is cleared", async () => {
    const { cookie, csrf } = await signIn(writer);
    const out = await inject({ method: "POST", url: "/dashboard/session/sign-out", headers: { cookie, "x-csrf-token": csrf } });
    expect(out.statusCode).toBe(204);
    expect(String(out.headers["set-cookie"])).toMatch(/^dashboard_session=; Path=\/dashboard; HttpOnly; SameSite=Strict; Max-Age=0/);
  });

  describe("bad input", () => {
    let session: { cookie: string; csrf: string };
    let otherSession: { cookie: string; csrf: string };
    let otherProductId: string;
    beforeAll(async () => {
      session = await signIn(writer);
      otherSession = await signIn(otherToken);
      const created = await inject({
        method: "POST",
        url: "/dashboard/api/products/",
        headers: { cookie: otherSession.cookie, "x-csrf-token": otherSession.csrf },
        payload: { name: "Theirs", prices: [{ amount_type: "free" }] },
      });
      otherProductId = created.json().id;
    });

    const send = () => (options: InjectOptions & { token?: string | null }) => inject(options);
    const post =
      (url: string, payload: unknown, headers: () => Record<string, string>): BadInputCase["request"] =>
      () => ({
        method: "POST",
        url,
        headers: headers(),
        payload: payload as object,
      });
    const withSession = () => ({ cookie: session.cookie, "x-csrf-token": session.csrf });
    const product = { name: "Should not exist", prices: [{ amount_type: "free" }] };
    let counts: [number, number] = [0, 0];
    beforeAll(async () => {
      counts = [await productCount(orgId), await productCount(otherOrgId)];
    });
    const unchanged = async () => expect([await productCount(orgId), await productCount(otherOrgId)]).toEqual(counts);

    badInputTable(
      send,
      [
        {
          name: "sign-in with a wrong token",
          request: () => post("/dashboard/session", { token: tamperLastCharacter(writer) }, () => ({}))(),
          status: 401,
          error: "InvalidToken",
        },
        {
          name: "sign-in with an unknown prefix",
          request: post("/dashboard/session", { token: "hello" }, () => ({})),
          status: 401,
          error: "InvalidToken",
        },
        { name: "sign-in without a token", request: post("/dashboard/session", {}, () => ({})), status: 422, loc: ["body", "token"] },
        {
          name: "sign-in with a number",
          request: post("/dashboard/session", { token: 42 }, () => ({})),
          status: 422,
          loc: ["body", "token"],
        },
        {
          name: "sign-in with an overlong token",
          request: post("/dashboard/session", { token: "x".repeat(257) }, () => ({})),
          status: 422,
          loc: ["body", "token"],
        },
        {
          name: "sign-in from another site",
          request: () => post("/dashboard/session", { token: writer }, () => ({ origin: "https://evil.example" }))(),
          status: 403,
          error: "NotPermitted",
        },
        {
          name: "sign-in sent cross-site",
          request: () => post("/dashboard/session", { token: writer }, () => ({ "sec-fetch-site": "cross-site" }))(),
          status: 403,
          error: "NotPermitted",
        },
        {
          name: "a write without a session",
          request: post("/dashboard/api/products/", product, () => ({})),
          status: 401,
          error: "SessionEnded",
        },
        {
          name: "a write with a forged cookie",
          request: post("/dashboard/api/products/", product, () => ({
            cookie: "dashboard_session=v1.AAAAforged",
            "x-csrf-token": session.csrf,
          })),
          status: 401,
          error: "SessionEnded",
        },
        {
          name: "a write without the CSRF token",
          request: post("/dashboard/api/products/", product, () => ({ cookie: session.cookie })),
          status: 403,
          error: "NotPermitted",
        },
        {
          name: "a write with a forged CSRF token",
          request: post("/dashboard/api/products/", product, () => ({ cookie: session.cookie, "x-csrf-token": "forged" })),
          status: 403,
          error: "NotPermitted",
        },
        {
          name: "a write with another session's CSRF token",
          request: post("/dashboard/api/products/", product, () => ({ cookie: session.cookie, "x-csrf-token": otherSession.csrf })),
          status: 403,
          error: "NotPermitted",
        },
        {
          name: "a write the API refuses",
          request: post("/dashboard/api/products/", { name: 5 }, withSession),
          status: 422,
          loc: ["body", "name"],
        },
        {
          name: "no API path",
          request: () => ({ method: "GET", url: "/dashboard/api/", headers: withSession() }),
          status: 404,
        },
        {
          name: "an encoded climb",
          request: () => ({ method: "GET", url: "/dashboard/api/products/%2e%2e/x", headers: withSession() }),
          status: 404,
        },
        {
          name: "another organization's product",
          request: () => ({ method: "GET", url: `/dashboard/api/products/${otherProductId}`, headers: withSession() }),
          status: 404,
          error: "ResourceNotFound",
        },
        {
          name: "a change to another organization's product",
          request: () => ({
            method: "PATCH",
            url: `/dashboard/api/products/${otherProductId}`,
            headers: withSession(),
            payload: { name: "Mine now" },
          }),
          status: 404,
          error: "ResourceNotFound",
        },
        {
          name: "choosing an organization the token cannot see",
          request: () => post("/dashboard/session/organization", { organization_id: otherOrgId }, withSession)(),
          status: 404,
          error: "ResourceNotFound",
        },
        {
          name: "choosing a non-UUID organization",
          request: post("/dashboard/session/organization", { organization_id: "org" }, withSession),
          status: 422,
          loc: ["body", "organization_id"],
        },
        {
          name: "choosing without the CSRF token",
          request: () => post("/dashboard/session/organization", { organization_id: orgId }, () => ({ cookie: session.cookie }))(),
          status: 403,
          error: "NotPermitted",
        },
        {
          name: "choosing without a session",
          request: () => post("/dashboard/session/organization", { organization_id: orgId }, () => ({}))(),
          status: 401,
          error: "Unauthorized",
        },
        {
          name: "signing out with a forged CSRF token",
          request: post("/dashboard/session/sign-out", {}, () => ({ cookie: session.cookie, "x-csrf-token": "x" })),
          status: 403,
          error: "NotPermitted",
        },
      ],
      unchanged,
    );

    it("answers a token of another organization with that organization only", async () => {
      const mine = await inject({ method: "GET", url: "/dashboard/api/products/?limit=100", headers: { cookie: otherSession.cookie } });
      expect(mine.json().items.map((p: { organization_id: string }) => p.organization_id)).toEqual([otherOrgId]);
      const refusal = await inject({
        method: "GET",
        url: `/dashboard/api/products/${otherProductId}`,
        headers: { cookie: session.cookie },
      });
      expectErrorBody(refusal.statusCode, refusal.json());
    });
  });
});
