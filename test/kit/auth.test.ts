import { createHmac, randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TokenPrefix, generateToken } from "../../src/values/tokens.ts";
import { createAccessTokenService } from "../../src/modules/organizations/access-tokens.service.ts";
import { createTestContext, type TestContext } from "../helpers/context.ts";
import {
  createCheckout,
  createCustomer,
  createCustomerSessionToken,
  createOrganization,
  createOrganizationToken,
  createProduct,
  tamperLastCharacter,
} from "../helpers/factories.ts";

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

  /** The status of a request, and how many times it took a connection from the app's pool. */
  async function countingConnections(token: string, url: string): Promise<{ status: number; connections: number }> {
    let connections = 0;
    const count = () => (connections += 1);
    ctx.database.pool.on("acquire", count);
    try {
      const response = await ctx.request({ method: "GET", url, token });
      return { status: response.statusCode, connections };
    } finally {
      ctx.database.pool.off("acquire", count);
    }
  }

  it("refuses a token with a valid shape whose checksum is wrong, without a database hit", async () => {
    const customer = await createCustomer(ctx.deps, orgId);
    const kinds = [
      {
        prefix: TokenPrefix.organizationAccess,
        token: await createOrganizationToken(ctx.deps, orgId, ["checkouts:read"]),
        url: `/v1/checkouts/${checkoutId}`,
      },
      {
        prefix: TokenPrefix.customerSession,
        token: await createCustomerSessionToken(ctx.deps, customer.id),
        url: "/v1/customer-portal/customers/me",
      },
    ];
    for (const { prefix, token, url } of kinds) {
      // The counter sees the lookup of a well-formed unknown token: its silence below means something.
      const unknown = await countingConnections(generateToken(prefix), url);
      expect(unknown.status).toBe(401);
      expect(unknown.connections).toBeGreaterThan(0);
      expect(await countingConnections(tamperLastCharacter(token), url)).toEqual({ status: 401, connections: 0 });
      // The genuine token works: the tampered one differs only in its checksum.
      expect((await countingConnections(token, url)).status).toBe(200);
    }
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

  describe("stores tokens only as keyed hashes: HMAC-SHA256 under the server secret", () => {
    const hmac = (secret: string, token: string) => createHmac("sha256", secret).update(token).digest("hex");
    const tables = {
      personal: "personal_access_tokens",
      organization: "organization_access_tokens",
      customer: "customer_sessions",
    } as const;
    type Kind = keyof typeof tables;

    /** The stored hashes of a kind's table, after checking that no row holds the token itself. */
    const storedHashes = async (kind: Kind, token: string): Promise<string[]> => {
      const rows = await ctx.deps.db.selectFrom(tables[kind]).selectAll().execute();
      expect(JSON.stringify(rows)).not.toContain(token.slice(10));
      return rows.map((row) => row.token_hash);
    };

    /** Each kind of bearer token, issued under `deps` (the app's, or one with another secret). */
    const issue: Record<Kind, (deps: TestContext["deps"]) => Promise<string>> = {
      personal: async (deps) => {
        if (deps === ctx.deps) return ctx.ownerToken;
        const token = generateToken(TokenPrefix.personalAccess);
        await createAccessTokenService(deps).ensureOwnerToken(token);
        return token;
      },
      organization: (deps) => createOrganizationToken(deps, orgId, ["checkouts:read"]),
      customer: async (deps) => createCustomerSessionToken(deps, (await createCustomer(deps, orgId)).id),
    };
    const urlFor = (kind: Kind) => (kind === "customer" ? "/v1/customer-portal/customers/me" : `/v1/checkouts/${checkoutId}`);

    for (const kind of Object.keys(tables) as Kind[]) {
      it(`${kind} tokens: the stored value is the keyed hash, and another secret stores another value the app refuses`, async () => {
        const token = await issue[kind](ctx.deps);
        expect(await storedHashes(kind, token)).toContain(hmac(ctx.deps.secret, token));
        expect((await ctx.request({ method: "GET", url: urlFor(kind), token })).statusCode).toBe(200);

        const elsewhere = { ...ctx.deps, secret: randomBytes(32).toString("hex") };
        const foreign = await issue[kind](elsewhere);
        const hashes = await storedHashes(kind, foreign);
        expect(hashes).toContain(hmac(elsewhere.secret, foreign));
        expect(hashes).not.toContain(hmac(ctx.deps.secret, foreign));
        expect((await ctx.request({ method: "GET", url: urlFor(kind), token: foreign })).statusCode).toBe(401);
      });
    }
  });
});
