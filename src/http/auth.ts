import type { FastifyInstance, FastifyRequest } from "fastify";
import { setRequestClockOffset } from "../values/clock.ts";
import { InsufficientScope, InvalidToken, NotPermitted, Unauthorized } from "./errors.ts";

/** A member's role within its customer (`members` table); a member session carries it. */
export type MemberRole = "owner" | "billing_manager" | "member";

/**
 * Who is calling. Every authenticated request resolves to exactly one of these. A member session
 * acts on its member's customer with the member's role, read when the token is resolved (so a
 * role change applies within the principal cache's few seconds).
 */
export type Principal =
  | { kind: "user"; tokenId: string; scopes: ReadonlySet<string> | "all" }
  | { kind: "organization"; tokenId: string; organizationId: string; scopes: ReadonlySet<string>; clockOffsetMs?: number }
  | { kind: "customer"; sessionId: string; organizationId: string; customerId: string; clockOffsetMs?: number }
  | {
      kind: "member";
      sessionId: string;
      organizationId: string;
      customerId: string;
      memberId: string;
      memberRole: MemberRole;
      clockOffsetMs?: number;
    };

export type PrincipalKind = Principal["kind"];

/** The reference's security scheme names, by principal kind. */
export const SecuritySchemeOf: Record<PrincipalKind, string> = {
  user: "pat",
  organization: "oat",
  customer: "customer_session",
  member: "member_session",
};

export interface RouteAuth {
  /** Principal kinds the route accepts. */
  readonly kinds: readonly PrincipalKind[];
  /** Any one of these scopes is enough; sessions hold the customer-portal scopes implicitly. */
  readonly scopes: readonly string[];
  /**
   * Member sessions whose role is not listed are refused with 403 `NotPermitted` and `refusal`,
   * after the kind and scope checks and before the input is read. Other kinds are unaffected.
   */
  readonly memberRoles?: { readonly allowed: readonly MemberRole[]; readonly refusal: string };
}

/** Turns a raw bearer token into a principal; `null` when the token is unknown, expired or revoked. */
export type TokenAuthenticator = (token: string) => Promise<Principal | null>;

declare module "fastify" {
  interface FastifyContextConfig {
    auth?: RouteAuth;
  }
  interface FastifyRequest {
    principal: Principal | null;
  }
}

const SESSION_SCOPES = new Set(["customer_portal:read", "customer_portal:write"]);

function holdsAnyScope(principal: Principal, required: readonly string[]): boolean {
  if (required.length === 0) return true;
  if (principal.kind === "customer" || principal.kind === "member") return required.some((s) => SESSION_SCOPES.has(s));
  if (principal.scopes === "all") return true;
  const held = principal.scopes;
  return required.some((scope) => held.has(scope));
}

/** Reads `Authorization: Bearer <token>`; any other scheme counts as no credential. */
function bearerToken(request: FastifyRequest): string | null {
  const header = request.headers.authorization;
  if (!header) return null;
  const match = /^bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1] ?? null;
}

/**
 * Authentication runs before routing-level validation, as the reference does: a bad token is a
 * 401 whatever the route, a missing credential or scope is refused before the input is looked at.
 */
export function registerAuth(app: FastifyInstance, authenticators: ReadonlyMap<string, TokenAuthenticator>): void {
  app.decorateRequest("principal", null);

  app.addHook("onRequest", async (request) => {
    if (!request.url.startsWith("/v1/")) return;
    const token = bearerToken(request);
    if (token === null) return;
    const prefix = [...authenticators.keys()].find((p) => token.startsWith(p));
    const principal = prefix ? await authenticators.get(prefix)!(token) : null;
    if (principal === null) throw new InvalidToken();
    request.principal = principal;
    // An organization's caller works at the organization's time (the sandbox test clock).
    if (principal.kind !== "user" && principal.clockOffsetMs) setRequestClockOffset(principal.clockOffsetMs);
  });

  app.addHook("onRequest", async (request) => {
    const auth = request.routeOptions.config.auth;
    if (!auth) return;
    const principal = request.principal;
    if (principal === null || !auth.kinds.includes(principal.kind)) throw new Unauthorized();
    if (!holdsAnyScope(principal, auth.scopes)) throw new InsufficientScope(auth.scopes);
    if (principal.kind === "member" && auth.memberRoles && !auth.memberRoles.allowed.includes(principal.memberRole)) {
      throw new NotPermitted(auth.memberRoles.refusal);
    }
  });

  // The OpenAPI document shows each route's accepted schemes and scopes, as the reference does.
  app.addHook("onRoute", (route) => {
    const auth = route.config?.auth;
    if (!auth || !route.schema) return;
    const scopes = [...auth.scopes];
    (route.schema as { security?: Record<string, string[]>[] }).security = auth.kinds.map((kind) => ({
      [SecuritySchemeOf[kind]]: scopes,
    }));
  });
}

/** The principal of a route that declared `auth`; the hook guarantees it is set. */
export function principalOf(request: FastifyRequest): Principal {
  if (request.principal === null) throw new Unauthorized();
  return request.principal;
}

/**
 * Organizations a principal may act on: `null` means every organization (the instance owner).
 * Services filter by this so that another organization's id answers exactly like an unknown one.
 */
export type OrganizationScope = readonly [string, ...string[]] | null;

export function organizationScope(principal: Principal): OrganizationScope {
  return principal.kind === "user" ? null : [principal.organizationId];
}
