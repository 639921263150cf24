import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { badInputTable } from "../../helpers/bad-inputs.ts";
import { createTestContext, type TestContext } from "../../helpers/context.ts";
import { createOrganization, createOrganizationToken } from "../../helpers/factories.ts";

/** The owner lists and revokes an organization's tokens (extensions beside the token creation). */
let ctx: TestContext;
let orgId: string;
let otherOrgId: string;
beforeAll(async () => {
  ctx = await createTestContext();
  orgId = (await createOrganization(ctx.deps)).id;
  otherOrgId = (await createOrganization(ctx.deps)).id;
});
afterAll(() => ctx.close());

const create = async (organizationId: string, comment: string) => {
  const response = await ctx.request({
    method: "POST",
    url: "/v1/organization-access-tokens/",
    token: ctx.ownerToken,
    payload: { organization_id: organizationId, comment, scopes: ["organizations:read"] },
  });
  expect(response.statusCode, response.body).toBe(201);
  return response.json<{ token: string; organization_access_token: { id: string } }>();
};

const revokedCount = async () =>
  Number(
    (
      await ctx.deps.db
        .selectFrom("organization_access_tokens")
        .select((e) => e.fn.countAll().as("n"))
        .where("revoked_at", "is not", null)
        .executeTakeFirstOrThrow()
    ).n,
  );

describe("GET and DELETE /v1/organization-access-tokens/", () => {
  it("lists the organization's live tokens newest first, never their secret, and revokes one for good", async () => {
    const first = await create(orgId, "first");
    const second = await create(orgId, "second");
    await create(otherOrgId, "elsewhere");
    const listed = await ctx.request({
      method: "GET",
      url: `/v1/organization-access-tokens/?organization_id=${orgId}`,
      token: ctx.ownerToken,
    });
    expect(listed.statusCode, listed.body).toBe(200);
    const body = listed.json();
    expect(body.pagination).toEqual({ total_count: 2, max_page: 1 });
    expect(body.items.map((t: { comment: string }) => t.comment)).toEqual(["second", "first"]);
    expect(listed.body).not.toContain(first.token);
    expect(body.items[0]).toMatchObject({
      id: second.organization_access_token.id,
      organization_id: orgId,
      scopes: ["organizations:read"],
    });

    const revoked = await ctx.request({
      method: "DELETE",
      url: `/v1/organization-access-tokens/${first.organization_access_token.id}`,
      token: ctx.ownerToken,
    });
    expect(revoked.statusCode).toBe(204);
    const after = (
      await ctx.request({ method: "GET", url: `/v1/organization-access-tokens/?organization_id=${orgId}`, token: ctx.ownerToken })
    ).json();
    expect(after.items.map((t: { comment: string }) => t.comment)).toEqual(["second"]);
    // Never used before, so no principal cache holds it: refused at once.
    expect((await ctx.request({ method: "GET", url: `/v1/organizations/${orgId}`, token: first.token })).statusCode).toBe(401);
    expect((await ctx.request({ method: "GET", url: `/v1/organizations/${orgId}`, token: second.token })).statusCode).toBe(200);
  });

  describe("bad input", () => {
    let orgToken = "";
    let live = "";
    let before = 0;
    beforeAll(async () => {
      orgToken = await createOrganizationToken(ctx.deps, orgId, ["organizations:read", "organizations:write"]);
      live = (await create(orgId, "kept")).organization_access_token.id;
      const gone = (await create(orgId, "gone")).organization_access_token.id;
      await ctx.request({ method: "DELETE", url: `/v1/organization-access-tokens/${gone}`, token: ctx.ownerToken });
      before = await revokedCount();
      goneId = gone;
    });
    let goneId = "";
    const list =
      (query: string, token: () => string | null = () => ctx.ownerToken) =>
      () => ({
        method: "GET" as const,
        url: `/v1/organization-access-tokens/${query}`,
        token: token(),
      });
    const revoke =
      (id: () => string, token: () => string | null = () => ctx.ownerToken) =>
      () => ({
        method: "DELETE" as const,
        url: `/v1/organization-access-tokens/${id()}`,
        token: token(),
      });
    badInputTable(
      () => ctx.request,
      [
        { name: "a list without organization_id", request: list(""), status: 422, loc: ["query", "organization_id"] },
        { name: "a non-UUID organization_id", request: list("?organization_id=abc"), status: 422, loc: ["query", "organization_id"] },
        { name: "an unknown organization", request: list("?organization_id=3f2b1c4d-1111-4222-8333-123456789abc"), status: 404 },
        { name: "a zero limit", request: () => list(`?organization_id=${orgId}&limit=0`)(), status: 422, loc: ["query", "limit"] },
        { name: "a list without a token", request: () => list(`?organization_id=${orgId}`, () => null)(), status: 401 },
        { name: "a list by an organization token", request: () => list(`?organization_id=${orgId}`, () => orgToken)(), status: 401 },
        {
          name: "a revocation by an organization token",
          request: revoke(
            () => live,
            () => orgToken,
          ),
          status: 401,
        },
        {
          name: "a revocation without a token",
          request: revoke(
            () => live,
            () => null,
          ),
          status: 401,
        },
        { name: "a non-UUID id", request: revoke(() => "not-a-uuid"), status: 422, loc: ["path", "id"] },
        { name: "an unknown id", request: revoke(() => "3f2b1c4d-1111-4222-8333-123456789abc"), status: 404 },
        { name: "a token revoked already", request: revoke(() => goneId), status: 404 },
      ],
      async () => expect(await revokedCount()).toBe(before),
    );
  });
});
