import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { badInputTable } from "../../helpers/bad-inputs.ts";
import { createTestContext, type TestContext } from "../../helpers/context.ts";
import { createOrganization, createOrganizationToken } from "../../helpers/factories.ts";
import { expectReferenceResponse } from "../../helpers/reference.ts";

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(() => ctx.close());

const countOrganizations = async () =>
  Number(
    (
      await ctx.deps.db
        .selectFrom("organizations")
        .select((eb) => eb.fn.countAll<string>().as("n"))
        .executeTakeFirstOrThrow()
    ).n,
  );

describe("POST /v1/organizations/", () => {
  it("creates an organization with the full Organization shape", async () => {
    const response = await ctx.request({
      method: "POST",
      url: "/v1/organizations/",
      token: ctx.ownerToken,
      payload: { name: "Acme Tools", slug: "acme-tools", email: "billing@acme.test", website: "https://acme.test" },
    });
    expect(response.statusCode).toBe(201);
    const body = response.json();
    expectReferenceResponse("organizations:create", 201, body);
    expect(body).toMatchObject({
      name: "Acme Tools",
      slug: "acme-tools",
      email: "billing@acme.test",
      website: "https://acme.test",
      status: "active",
      default_presentment_currency: "usd",
      default_tax_behavior: "location",
      socials: [],
      capabilities: { api_access: true, checkout_payments: true },
      feature_settings: { member_model_enabled: false },
    });
    expect(body.id).toMatch(/^[0-9a-f-]{36}$/);
    const stored = await ctx.request({ method: "GET", url: `/v1/organizations/${body.id}`, token: ctx.ownerToken });
    expect(stored.json()).toEqual(body);
  });

  it("refuses a duplicate slug with a 422 on the slug, even when two requests race", async () => {
    const send = () =>
      ctx.request({ method: "POST", url: "/v1/organizations/", token: ctx.ownerToken, payload: { name: "Racer", slug: "racer-slug" } });
    const responses = await Promise.all([send(), send(), send(), send()]);
    expect(responses.map((r) => r.statusCode).sort()).toEqual([201, 422, 422, 422]);
    const refused = responses.find((r) => r.statusCode === 422)!;
    expect(refused.json().detail[0].loc).toEqual(["body", "slug"]);
  });

  describe("bad input", () => {
    let before = 0;
    let orgToken: string;
    beforeAll(async () => {
      const org = await createOrganization(ctx.deps);
      orgToken = await createOrganizationToken(ctx.deps, org.id, ["organizations:write"]);
      before = await countOrganizations();
    });
    const post = (payload: unknown, token?: string | null) => () => ({
      method: "POST" as const,
      url: "/v1/organizations/",
      token: token === undefined ? ctx.ownerToken : token,
      payload: payload as object,
    });
    badInputTable(
      () => ctx.request,
      [
        { name: "a missing name", request: post({ slug: "no-name" }), status: 422, loc: ["body", "name"] },
        { name: "a missing slug", request: post({ name: "No slug" }), status: 422, loc: ["body", "slug"] },
        { name: "a name of the wrong type", request: post({ name: 42, slug: "wrong-type" }), status: 422, loc: ["body", "name"] },
        { name: "a too short slug", request: post({ name: "Short", slug: "ab" }), status: 422, loc: ["body", "slug"] },
        { name: "an overlong slug", request: post({ name: "Long", slug: "x".repeat(65) }), status: 422, loc: ["body", "slug"] },
        {
          name: "an invalid email",
          request: post({ name: "Mail", slug: "bad-mail", email: "not-an-email" }),
          status: 422,
          loc: ["body", "email"],
        },
        { name: "a body that is not an object", request: post([1, 2]), status: 422 },
        {
          name: "malformed JSON",
          request: () => ({
            method: "POST",
            url: "/v1/organizations/",
            token: ctx.ownerToken,
            headers: { "content-type": "application/json" },
            payload: "{nope",
          }),
          status: 422,
          loc: ["body", 0],
        },
        {
          name: "a non-JSON content type",
          request: () => ({
            method: "POST",
            url: "/v1/organizations/",
            token: ctx.ownerToken,
            headers: { "content-type": "text/plain" },
            payload: "name=x",
          }),
          status: 422,
          loc: ["body"],
        },
        { name: "no token", request: post({ name: "Anon", slug: "anon-org" }, null), status: 401, error: "Unauthorized" },
        {
          name: "an organization token",
          request: () => ({ method: "POST", url: "/v1/organizations/", token: orgToken, payload: { name: "Org", slug: "by-org-token" } }),
          status: 401,
          error: "Unauthorized",
        },
        {
          name: "a bad token",
          request: post({ name: "Bad", slug: "bad-token" }, "polar_pat_unknown"),
          status: 401,
          error: "invalid_token",
        },
      ],
      async () => expect(await countOrganizations()).toBe(before),
    );
  });
});

describe("GET /v1/organizations/{id}", () => {
  it("lets an organization token read its own organization and nobody else's", async () => {
    const mine = await createOrganization(ctx.deps);
    const theirs = await createOrganization(ctx.deps);
    const token = await createOrganizationToken(ctx.deps, mine.id, ["organizations:read"]);
    const own = await ctx.request({ method: "GET", url: `/v1/organizations/${mine.id}`, token });
    expect(own.statusCode).toBe(200);
    expectReferenceResponse("organizations:get", 200, own.json());
    const foreign = await ctx.request({ method: "GET", url: `/v1/organizations/${theirs.id}`, token });
    expect(foreign.statusCode).toBe(404);
    expect(foreign.json()).toEqual({ error: "ResourceNotFound", detail: "Not found" });
  });

  describe("bad input", () => {
    let token: string;
    let noScope: string;
    beforeAll(async () => {
      const org = await createOrganization(ctx.deps);
      token = await createOrganizationToken(ctx.deps, org.id, ["organizations:read"]);
      noScope = await createOrganizationToken(ctx.deps, org.id, ["checkouts:read"]);
    });
    badInputTable(
      () => ctx.request,
      [
        {
          name: "a non-UUID id",
          request: () => ({ method: "GET", url: "/v1/organizations/123", token }),
          status: 422,
          loc: ["path", "id"],
        },
        {
          name: "an unknown id",
          request: () => ({ method: "GET", url: "/v1/organizations/3f2b1c4d-1111-4222-8333-123456789abc", token }),
          status: 404,
          error: "ResourceNotFound",
        },
        {
          name: "a missing scope",
          request: () => ({ method: "GET", url: "/v1/organizations/3f2b1c4d-1111-4222-8333-123456789abc", token: noScope }),
          status: 403,
          error: "insufficient_scope",
        },
        {
          name: "no token",
          request: () => ({ method: "GET", url: "/v1/organizations/3f2b1c4d-1111-4222-8333-123456789abc" }),
          status: 401,
          error: "Unauthorized",
        },
      ],
    );
  });
});

describe("POST /v1/organization-access-tokens/", () => {
  it("creates a token shown once, usable at once with exactly its scopes", async () => {
    const org = await createOrganization(ctx.deps);
    const response = await ctx.request({
      method: "POST",
      url: "/v1/organization-access-tokens/",
      token: ctx.ownerToken,
      payload: { organization_id: org.id, comment: "ci", scopes: ["organizations:read"], expires_in: "P30D" },
    });
    expect(response.statusCode).toBe(201);
    const body = response.json();
    expect(body.token).toMatch(/^polar_oat_[A-Za-z0-9]{43}$/);
    expect(body.organization_access_token).toMatchObject({
      organization_id: org.id,
      comment: "ci",
      scopes: ["organizations:read"],
      last_used_at: null,
    });
    const lifetime = new Date(body.organization_access_token.expires_at).getTime() - ctx.clock.now().getTime();
    expect(lifetime).toBe(30 * 86_400_000);
    expect((await ctx.request({ method: "GET", url: `/v1/organizations/${org.id}`, token: body.token })).statusCode).toBe(200);
  });

  describe("bad input", () => {
    let orgId: string;
    const count = async () =>
      Number(
        (
          await ctx.deps.db
            .selectFrom("organization_access_tokens")
            .select((eb) => eb.fn.countAll<string>().as("n"))
            .executeTakeFirstOrThrow()
        ).n,
      );
    let before = 0;
    beforeAll(async () => {
      orgId = (await createOrganization(ctx.deps)).id;
      before = await count();
    });
    const post = (payload: object) => () => ({
      method: "POST" as const,
      url: "/v1/organization-access-tokens/",
      token: ctx.ownerToken,
      payload,
    });
    badInputTable(
      () => ctx.request,
      [
        {
          name: "an unknown scope",
          request: post({ organization_id: "3f2b1c4d-1111-4222-8333-123456789abc", comment: "x", scopes: ["root"] }),
          status: 422,
          loc: ["body", "scopes", 0],
        },
        { name: "missing scopes", request: () => post({ organization_id: orgId, comment: "x" })(), status: 422, loc: ["body", "scopes"] },
        {
          name: "a missing organization",
          request: post({ comment: "x", scopes: ["orders:read"] }),
          status: 422,
          loc: ["body", "organization_id"],
        },
        {
          name: "an unknown organization",
          request: post({ organization_id: "3f2b1c4d-1111-4222-8333-123456789abc", comment: "x", scopes: ["orders:read"] }),
          status: 404,
          error: "ResourceNotFound",
        },
        {
          name: "a duration in years",
          request: () => post({ organization_id: orgId, comment: "x", scopes: ["orders:read"], expires_in: "P1Y" })(),
          status: 422,
          loc: ["body", "expires_in"],
        },
        {
          name: "a malformed duration",
          request: () => post({ organization_id: orgId, comment: "x", scopes: ["orders:read"], expires_in: "tomorrow" })(),
          status: 422,
          loc: ["body", "expires_in"],
        },
        {
          name: "an overlong comment",
          request: () => post({ organization_id: orgId, comment: "c".repeat(300), scopes: ["orders:read"] })(),
          status: 422,
          loc: ["body", "comment"],
        },
      ],
      async () => expect(await count()).toBe(before),
    );
  });
});
