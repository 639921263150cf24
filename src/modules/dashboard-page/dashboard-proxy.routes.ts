import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from "fastify";
import { AppError, ResourceNotFound } from "../../http/errors.ts";
import type { ApiRequest, ForwardToApi } from "./dashboard-access.ts";
import { DASHBOARD_PATH } from "./dashboard-session.ts";
import { clearSession, requireCsrf, visitOf, type DashboardContext } from "./dashboard-visit.ts";

const API_PREFIX = `${DASHBOARD_PATH}/api/`;
/** Path segments of the public API: ids, slugs and external ids, never `.` or `..` (the path cannot climb out of `/v1/`). */
const SEGMENT = /^[A-Za-z0-9_~%:@-][A-Za-z0-9._~%:@-]*$/;
const MAX_PATH_LENGTH = 512;
/** Headers of the API's answer the browser needs: what the body is, and how a download is named. */
const PASSED_HEADERS = ["content-type", "content-disposition", "retry-after"] as const;

/** No session, or one that ended: the page goes back to the sign-in form. */
export class DashboardSessionEnded extends AppError {
  constructor() {
    super(401, "SessionEnded", "Your dashboard session has ended or its token no longer works. Sign in again.");
  }
}

/** `/dashboard/api/<path>?<query>` → `/v1/<path>?<query>`, or null for a path outside the API. */
function apiUrlOf(url: string): string | null {
  const [path = "", query] = url.split(/\?(.*)/s, 2);
  if (!path.startsWith(API_PREFIX) || path.length > MAX_PATH_LENGTH) return null;
  const rest = path.slice(API_PREFIX.length);
  const segments = rest.split("/");
  // A trailing slash is part of some of the API's paths (`/v1/products/`).
  const named = segments.at(-1) === "" ? segments.slice(0, -1) : segments;
  if (named.length === 0 || !named.every((segment) => SEGMENT.test(segment))) return null;
  return `/v1/${rest}${query ? `?${query}` : ""}`;
}

/**
 * The dashboard's only way to the data: the same-origin proxy under `/dashboard/api/`, which sends
 * each request to the public API (`/v1/…`) with the session's token, so the dashboard can do
 * exactly what the token's scopes allow. Writes need the session's CSRF token in `X-CSRF-Token`.
 */
export const dashboardProxyRoutes =
  (context: DashboardContext, forward: ForwardToApi): FastifyPluginAsync =>
  async (app) => {
    const proxy = async (request: FastifyRequest, reply: FastifyReply) => {
      const url = apiUrlOf(request.url);
      if (url === null) throw new ResourceNotFound();
      const visit = await visitOf(context, request);
      if ("missing" in visit) {
        clearSession(reply, request);
        throw new DashboardSessionEnded();
      }
      const method = request.method as ApiRequest["method"];
      if (method !== "GET") requireCsrf(context, request, visit.session);
      const body = typeof request.body === "object" && request.body !== null ? request.body : undefined;
      const answer = await forward({ method, url, token: visit.session.token, body });
      // The token was revoked or expired since the session began: the session ends with it.
      if (answer.statusCode === 401) clearSession(reply, request);
      for (const name of PASSED_HEADERS) {
        const value = answer.headers[name];
        if (value !== undefined) reply.header(name, value);
      }
      return reply.code(answer.statusCode).header("cache-control", "no-store").send(answer.rawPayload);
    };
    for (const method of ["GET", "POST", "PATCH", "DELETE"] as const)
      app.route({ method, url: `${API_PREFIX}*`, schema: { hide: true }, handler: proxy });
  };
