import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AvailableScopes, type AvailableScope } from "../../src/modules/organizations/access-tokens.schemas.ts";
import { expectErrorBody } from "../helpers/bad-inputs.ts";
import { createTestContext } from "../helpers/context.ts";
import { createOrganizationToken, tamperLastCharacter } from "../helpers/factories.ts";
import {
  deletionsLast,
  documentedOperations,
  EVERY_ROUTE_ENV,
  operationSeed,
  requestAtRealIds,
  type Operation,
} from "../helpers/openapi-requests.ts";
import type { IdSource } from "../helpers/schema-arbitraries.ts";
import { rowIdsWhere, seedTenant, tenantIdSource, type Tenant } from "../helpers/tenant.ts";

/**
 * Every documented route × six callers who must not get the victim tenant's data, each request
 * aimed at the victim's real rows (path ids, id fields). The expected answer follows from what the
 * route accepts (`requireAuth`, documented as its `security`): 401 for no, a garbage or an expired
 * token and for a kind the route does not take, 403 insufficient_scope for a missing scope, 404
 * for another organization's or another customer's row. No answer carries an id of the victim's
 * rows that the request did not send.
 */
const ctx = await createTestContext({ env: EVERY_ROUTE_ENV });
afterAll(() => ctx.close());
const operations = deletionsLast(await documentedOperations(ctx));

let victim: Tenant;
let attacker: Tenant;
let ids: IdSource;
let expiredToken: string;
/** Ids of every row of the victim organization, and of the victim customer's rows. */
let organizationRows: Set<string>;
let customerRows: Set<string>;
const tokensByScope = new Map<AvailableScope, string>();

beforeAll(async () => {
  victim = await seedTenant(ctx);
  attacker = await seedTenant(ctx);
  ids = await tenantIdSource(ctx, victim);
  expiredToken = await createOrganizationToken(ctx.deps, victim.organizationId, [...AvailableScopes]);
  // Expired before its first use, so no principal cache holds it.
  const newest = ctx.database.db
    .selectFrom("organization_access_tokens")
    .select("id")
    .where("organization_id", "=", victim.organizationId)
    .orderBy("created_at", "desc")
    .limit(1);
  await ctx.database.db
    .updateTable("organization_access_tokens")
    .set({ expires_at: new Date(ctx.clock.now().getTime() - 60_000) })
    .where("id", "=", newest)
    .execute();
  organizationRows = await rowIdsWhere(ctx, "organization_id", victim.organizationId);
  customerRows = await rowIdsWhere(ctx, "customer_id", victim.customer.id);
});

/** A victim token holding one scope, one the route does not take (every route names its scopes). */
async function tokenLacking(operation: Operation): Promise<string> {
  const scopes = operation.auth?.scopes ?? [];
  const scope = AvailableScopes.find((candidate) => !scopes.includes(candidate))!;
  if (!tokensByScope.has(scope)) tokensByScope.set(scope, await createOrganizationToken(ctx.deps, victim.organizationId, [scope]));
  return tokensByScope.get(scope)!;
}

/** A given refusal, a 404 for the victim's row, an answer that is no 401/403, or anything but a 5xx. */
type Expected = { status: number; error: string } | "not found" | "answered" | null;

interface Caller {
  name: string;
  token: (operation: Operation) => Promise<string | null>;
  expected: (operation: Operation) => Expected;
  /** The rows this caller must never be answered. */
  forbidden?: () => Set<string>;
}

const accepts = (operation: Operation, kind: "organization" | "member") => operation.auth?.kinds.includes(kind) ?? false;
const hasPathParameters = (operation: Operation) => operation.parameters.some((parameter) => parameter.in === "path");
const UNAUTHORIZED = { status: 401, error: "Unauthorized" };
const INVALID_TOKEN = { status: 401, error: "invalid_token" };

/** What a caller of an accepted kind meets: a 404 on the victim's rows, else an answer (lists: none of the victim's rows). */
const onVictimRows = (operation: Operation): Expected => (hasPathParameters(operation) ? "not found" : "answered");

const CALLERS: Caller[] = [
  {
    name: "no token",
    token: async () => null,
    expected: (operation) => (operation.auth ? UNAUTHORIZED : null),
  },
  {
    name: "a garbage token",
    token: async () => tamperLastCharacter(victim.token),
    expected: () => INVALID_TOKEN,
  },
  {
    name: "an expired token",
    token: async () => expiredToken,
    expected: () => INVALID_TOKEN,
  },
  {
    name: "another organization's token with every scope",
    token: async () => attacker.token,
    expected: (operation) => (!operation.auth ? null : accepts(operation, "organization") ? onVictimRows(operation) : UNAUTHORIZED),
    forbidden: () => organizationRows,
  },
  {
    name: "a token lacking the scope",
    token: tokenLacking,
    expected: (operation) =>
      !operation.auth ? null : accepts(operation, "organization") ? { status: 403, error: "insufficient_scope" } : UNAUTHORIZED,
  },
  {
    name: "another customer's session",
    token: async () => victim.otherCustomer.session,
    expected: (operation) => (!operation.auth ? null : accepts(operation, "member") ? onVictimRows(operation) : UNAUTHORIZED),
    forbidden: () => customerRows,
  },
];

const SEED = 7;
// Without seeded rows (payments, grants, customer meters, saved methods) a route's 404 proves less:
// most must meet a real row of the victim.
it("aims the requests of routes with path parameters at the victim's real rows", () => {
  const victimValues = [...organizationRows, victim.customer.externalId, victim.checkoutClientSecret, victim.checkoutLinkClientSecret];
  const withPaths = operations.filter(hasPathParameters);
  const aimed = withPaths.filter((operation) => {
    const path = requestAtRealIds(operation, ids, operationSeed(operation, SEED)).url.split("?")[0]!;
    return victimValues.some((value) => path.includes(encodeURIComponent(value)));
  });
  expect(aimed.length / withPaths.length).toBeGreaterThan(0.9);
});

describe.each(operations.map((operation) => [`${operation.method} ${operation.path}`, operation] as const))("%s", (_name, operation) => {
  it.each(CALLERS.map((caller) => [caller.name, caller] as const))("as %s", async (_callerName, caller) => {
    const token = await caller.token(operation);
    const request = requestAtRealIds(operation, ids, operationSeed(operation, SEED));
    const response = await ctx.request({ ...request, token });
    const context = `${request.method} ${request.url} ${request.payload ?? ""} → ${response.statusCode} ${response.body.slice(0, 500)}`;
    expect(response.statusCode, context).toBeLessThan(500);
    const expected = caller.expected(operation);
    if (expected === "not found") {
      expect(response.statusCode, context).toBe(404);
      expectErrorBody(404, response.json());
    } else if (expected === "answered") {
      expect([401, 403], context).not.toContain(response.statusCode);
    } else if (expected) {
      expect(response.statusCode, context).toBe(expected.status);
      expect(expectErrorBody(response.statusCode, response.json()).error, context).toBe(expected.error);
    }
    // A public route answers whoever holds the capability the request carries (a client secret, a
    // license key): the caller's token does not enter into it.
    if (!operation.auth) return;
    const sent = `${request.url} ${request.payload ?? ""}`;
    const leaked = [...(caller.forbidden?.() ?? [])].filter((id) => response.body.includes(id) && !sent.includes(id));
    expect(leaked, context).toEqual([]);
  });
});
