import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestContext, type TestContext } from "../helpers/context.ts";
import { createCheckout, createOrganization, createOrganizationToken, createProduct, tamperLastCharacter } from "../helpers/factories.ts";

let ctx: TestContext;
let orgId: string;
let checkoutId: string;

beforeAll(async () => {
  ctx = await createTestContext();
  orgId = (await createOrganization(ctx.deps)).id;
  const product = await createProduct(ctx.deps, orgId);
  checkoutId = (await createCheckout(ctx.deps, orgId, { products: [product] })).id;
});
afterAll(() => ctx.close());

const INVALID_TOKEN_DESCRIPTION = "The access token provided is expired, revoked, malformed, or invalid for other reasons.";

describe("bearer authentication", () => {
  it("answers a missing credential with 401 Unauthorized and the realm challenge", async () => {
    const response = await ctx.request({ method: "GET", url: `/v1/checkouts/${checkoutId}` });
    expect(response.statusCode).toBe(401);
    expect(response.json()).toEqual({ error: "Unauthorized", detail: "Unauthorized" });
    expect(response.headers["www-authenticate"]).toBe('Bearer realm="polar"');
  });

  it("answers a bad token with the RFC 6750 invalid_token body, headers and no caching", async () => {
    const response = await ctx.request({
      method: "GET",
      url: `/v1/checkouts/${checkoutId}`,
      token: "polar_oat_0000000000000000000000000000000000000000000",
    });
    expect(response.statusCode).toBe(401);
    expect(response.json()).toEqual({ error: "invalid_token", error_description: INVALID_TOKEN_DESCRIPTION });
    expect(response.headers["www-authenticate"]).toBe(
      `Bearer realm="polar", error="invalid_token", error_description="${INVALID_TOKEN_DESCRIPTION}"`,
    );
    expect(response.headers["cache-control"]).toBe("no-store");
    expect(response.headers.pragma).toBe("no-cache");
  });

  it("checks the token before the input: a bad token on a bad id is still 401", async () => {
    const response = await ctx.request({ method: "GET", url: "/v1/checkouts/not-a-uuid", token: "polar_oat_nope" });
    expect(response.statusCode).toBe(401);
  });

  it("refuses an expired organization token", async () => {
    const token = await createOrganizationToken(ctx.deps, orgId, ["checkouts:read"], "PT1M");
    expect((await ctx.request({ method: "GET", url: `/v1/checkouts/${checkoutId}`, token })).statusCode).toBe(200);
    ctx.clock.advance(61_000);
    try {
      const response = await ctx.request({ method: "GET", url: `/v1/checkouts/${checkoutId}`, token });
      expect(response.statusCode).toBe(401);
      expect(response.json().error).toBe("invalid_token");
    } finally {
      ctx.clock.advance(-61_000);
    }
  });

  it("refuses a revoked organization token", async () => {
    const token = await createOrganizationToken(ctx.deps, orgId, ["checkouts:read"]);
    await ctx.deps.db
      .updateTable("organization_access_tokens")
      .set({ revoked_at: new Date() })
      .where("organization_id", "=", orgId)
      .execute();
    const response = await ctx.request({ method: "GET", url: `/v1/checkouts/${checkoutId}`, token });
    expect(response.statusCode).toBe(401);
    expect(response.json().error).toBe("invalid_token");
  });

  it("refuses a token with a valid shape whose checksum is wrong, without a database hit", async () => {
    const token = await createOrganizationToken(ctx.deps, orgId, ["checkouts:read"]);
    const tampered = tamperLastCharacter(token);
    expect((await ctx.request({ method: "GET", url: `/v1/checkouts/${checkoutId}`, token: tampered })).statusCode).toBe(401);
  });

  it("answers a token without any of the route's scopes with 403 insufficient_scope naming them", async () => {
    const token = await createOrganizationToken(ctx.deps, orgId, ["products:read"]);
    const response = await ctx.request({ method: "GET", url: `/v1/checkouts/${checkoutId}`, token });
    expect(response.statusCode).toBe(403);
    expect(response.json()).toEqual({
      error: "insufficient_scope",
      error_description: "The request requires higher privileges than provided by the access token.",
    });
    expect(response.headers["www-authenticate"]).toContain('scope="checkouts:read checkouts:write"');
  });

  it("answers 401 Unauthorized when an organization token calls an owner-only route", async () => {
    const token = await createOrganizationToken(ctx.deps, orgId, ["organizations:write"]);
    const response = await ctx.request({ method: "POST", url: "/v1/organizations/", token, payload: { name: "Nope", slug: "nope-org" } });
    expect(response.statusCode).toBe(401);
    expect(response.json()).toEqual({ error: "Unauthorized", detail: "Unauthorized" });
  });

  it("accepts the scheme name in any case", async () => {
    const token = await createOrganizationToken(ctx.deps, orgId, ["checkouts:read"]);
    const response = await ctx.request({
      method: "GET",
      url: `/v1/checkouts/${checkoutId}`,
      headers: { authorization: `bEaReR ${token}` },
    });
    expect(response.statusCode).toBe(200);
  });

  it("stores tokens only as keyed hashes", async () => {
    const token = await createOrganizationToken(ctx.deps, orgId, ["checkouts:read"]);
    const rows = await ctx.deps.db.selectFrom("organization_access_tokens").select("token_hash").execute();
    expect(rows.every((row) => /^[0-9a-f]{64}$/.test(row.token_hash))).toBe(true);
    expect(JSON.stringify(rows)).not.toContain(token.slice(10));
  });
});
