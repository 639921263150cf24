import type { FastifyReply, FastifyRequest } from "fastify";
import { readCookie } from "../../http/cookies.ts";
import { NotPermitted } from "../../http/errors.ts";
import type { DashboardAccess, SignedInAs } from "./dashboard-access.ts";
import {
  CSRF_HEADER,
  SESSION_COOKIE,
  clearedSessionCookie,
  csrfMatches,
  openSession,
  sealSession,
  sessionCookie,
  type DashboardSession,
} from "./dashboard-session.ts";

export interface DashboardContext {
  access: DashboardAccess;
  secret: string;
  now: () => Date;
}

/** A request's session, when its cookie opens and its token still works. */
export interface Visit {
  session: DashboardSession;
  as: SignedInAs;
}

/** No cookie at all, or one that no longer opens a session (too old, altered, its token revoked). */
export type NoVisit = { missing: "none" | "ended" };

const isHttps = (request: FastifyRequest) => request.protocol === "https";

export async function visitOf(context: DashboardContext, request: FastifyRequest): Promise<Visit | NoVisit> {
  const sealed = readCookie(request.headers.cookie, SESSION_COOKIE);
  if (sealed === null) return { missing: "none" };
  const session = openSession(context.secret, sealed, context.now().getTime());
  const as = session ? await context.access.signedInAs(session.token) : null;
  if (!session || !as) return { missing: "ended" };
  // An organization token is bound to its organization, whatever the cookie says.
  if (as.organizationId !== null && session.organizationId !== null && session.organizationId !== as.organizationId)
    return { missing: "ended" };
  return { session, as };
}

export const setSession = (reply: FastifyReply, request: FastifyRequest, secret: string, session: DashboardSession): FastifyReply =>
  reply.header("set-cookie", sessionCookie(sealSession(secret, session), isHttps(request)));

export const clearSession = (reply: FastifyReply, request: FastifyRequest): FastifyReply =>
  reply.header("set-cookie", clearedSessionCookie(isHttps(request)));

/** A cookie-authenticated write must carry the session's CSRF token in its header; nothing is done otherwise. */
export function requireCsrf(context: DashboardContext, request: FastifyRequest, session: DashboardSession): void {
  if (!csrfMatches(context.secret, session, request.headers[CSRF_HEADER]))
    throw new NotPermitted("The CSRF token is missing or does not match this session. Reload the dashboard.");
}

/**
 * Signing in carries no session yet, so no CSRF token: it is refused when the browser says another
 * site sent it (a page elsewhere must not sign a seller into an account of its choosing).
 */
export function requireSameOrigin(request: FastifyRequest): void {
  const site = request.headers["sec-fetch-site"];
  const origin = request.headers.origin;
  const own = `${request.protocol}://${request.headers.host ?? ""}`;
  if ((typeof site === "string" && site !== "same-origin" && site !== "none") || (origin !== undefined && origin !== own))
    throw new NotPermitted("Sign in from the dashboard's own page.");
}
