import type { Deps } from "../../context.ts";
import type { TokenAuthenticator } from "../../http/auth.ts";
import { BILLING_ROLES } from "../../http/route-auth.ts";
import { TokenPrefix } from "../../values/tokens.ts";
import { findSessionSummary } from "../customers/customers.steps.ts";
import { findOrganizationBySlug } from "../organizations/organizations.steps.ts";

/** The cookie that carries the session token, scoped to one organization's portal path. */
export const SESSION_COOKIE = "portal_session";
const MAX_TOKEN_LENGTH = 256;
const MAX_SLUG_LENGTH = 128;

export interface PortalOrganization {
  id: string;
  name: string;
  slug: string;
}

/** Who the portal serves on a request: the organization of the address and the session's customer. */
export interface PortalVisit {
  organization: PortalOrganization;
  session: { organizationId: string; customerId: string };
  clockOffsetMs: number;
  /** Where the portal sends the customer back to (the session's `return_url`, http(s) only). */
  returnUrl: string | null;
}

/** The portal's path for an organization; every cookie and form of the portal lives below it. */
export const portalPath = (slug: string): string => `/${encodeURIComponent(slug)}/portal`;

/**
 * HttpOnly (the page's script never sees the token), `SameSite=Lax` (sent when the customer follows
 * the seller's link, never with another site's form), scoped to this organization's portal, ending
 * with the browser session; `Secure` wherever the portal is served over https.
 */
export const sessionCookie = (slug: string, token: string, secure: boolean): string =>
  `${SESSION_COOKIE}=${token}; Path=${portalPath(slug)}; HttpOnly; SameSite=Lax${secure ? "; Secure" : ""}`;

/** What a token opens on a portal: the visit, no session at all, or a member session without billing access. */
export type PortalEntry = { visit: PortalVisit } | { refused: "no-session" | "not-billing" };

/**
 * Resolves the organization a portal address names and the session a token (from the link or the
 * cookie) opens, through the same authenticators as the portal API's bearer tokens: a customer
 * session, or a member session of an owner or billing manager (the portal is all billing: orders,
 * subscriptions, payment method). A session of another organization opens nothing here.
 */
export function createPortalPageSessions(deps: Deps, authenticators: ReadonlyMap<string, TokenAuthenticator>) {
  const prefixes = [TokenPrefix.customerSession, TokenPrefix.memberSession];
  return {
    async organization(slug: string): Promise<PortalOrganization | null> {
      if (slug.length > MAX_SLUG_LENGTH) return null;
      return (await findOrganizationBySlug(deps.db, slug)) ?? null;
    },

    async enter(organization: PortalOrganization, token: string | null): Promise<PortalEntry> {
      const prefix = token === null || token.length > MAX_TOKEN_LENGTH ? undefined : prefixes.find((p) => token.startsWith(p));
      const authenticate = prefix ? authenticators.get(prefix) : undefined;
      const principal = token !== null && authenticate ? await authenticate(token) : null;
      if ((principal?.kind !== "customer" && principal?.kind !== "member") || principal.organizationId !== organization.id)
        return { refused: "no-session" };
      if (principal.kind === "member" && !BILLING_ROLES.includes(principal.memberRole)) return { refused: "not-billing" };
      const table = principal.kind === "member" ? "member_sessions" : "customer_sessions";
      const returnUrl = (await findSessionSummary(deps.db, table, principal.sessionId))?.return_url ?? null;
      return {
        visit: {
          organization,
          session: { organizationId: principal.organizationId, customerId: principal.customerId },
          clockOffsetMs: principal.clockOffsetMs ?? 0,
          returnUrl: returnUrl !== null && /^https?:\/\//i.test(returnUrl) ? returnUrl : null,
        },
      };
    },
  };
}
export type PortalPageSessions = ReturnType<typeof createPortalPageSessions>;
