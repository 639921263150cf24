import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { Type } from "@sinclair/typebox";
import { AppError, ResourceNotFound, Unauthorized } from "../../http/errors.ts";
import { sendHtml, themeOf } from "../../pages/html-page.ts";
import type { WebAssets } from "../../pages/web-assets.ts";
import { Uuid4 } from "../../schema/primitives.ts";
import { dashboardPage, type DashboardPageData, type SignInReason } from "./dashboard-page.render.ts";
import { DASHBOARD_PATH, csrfTokenOf, newSession } from "./dashboard-session.ts";
import { clearSession, requireCsrf, requireSameOrigin, setSession, visitOf, type DashboardContext } from "./dashboard-visit.ts";

const SignInBody = Type.Object({ token: Type.String({ minLength: 1, maxLength: 256 }) }, { additionalProperties: false });
const OrganizationChoiceBody = Type.Object({ organization_id: Uuid4() }, { additionalProperties: false });

/** A token the dashboard cannot use: unknown, expired, revoked, or not an organization-side token. */
class DashboardTokenRefused extends AppError {
  constructor() {
    super(
      401,
      "InvalidToken",
      "This token is not valid: it may be mistyped, expired or revoked. Paste an organization or personal access token.",
    );
  }
}

const reasonOf = (query: unknown): SignInReason => {
  const reason = typeof query === "object" && query !== null ? (query as { reason?: unknown }).reason : null;
  return reason === "expired" || reason === "signed-out" ? reason : null;
};

/**
 * The seller's dashboard at `/dashboard/`: one document for every address under it (its script
 * routes by the path), the sign-in that turns a pasted token into the sealed session cookie, the
 * choice of organization, and signing out. What the pages show and change goes through
 * `/dashboard/api/` (`dashboard-proxy.routes.ts`).
 */
export const dashboardPageRoutes =
  (context: DashboardContext, webAssets: WebAssets): FastifyPluginAsyncTypebox =>
  async (app) => {
    const page = async (request: Parameters<typeof visitOf>[1], reply: Parameters<typeof setSession>[0]) => {
      // The proxy's paths are never pages, even those it does not serve.
      if (/^\/dashboard\/api(-ext)?(\/|\?|$)/.test(request.url)) throw new ResourceNotFound();
      const assets = await webAssets.forPage("dashboard-page");
      const theme = themeOf(request.query);
      const send = (status: number, data: DashboardPageData) =>
        sendHtml(reply, status, dashboardPage(data, theme, assets), assets, { referrerPolicy: "same-origin" });
      const visit = await visitOf(context, request);
      if ("missing" in visit) {
        if (visit.missing === "ended") clearSession(reply, request);
        return send(200, { view: "sign-in", reason: visit.missing === "ended" ? "expired" : reasonOf(request.query) });
      }
      const { session, as } = visit;
      const csrfToken = csrfTokenOf(context.secret, session);
      const organizations = await context.access.organizations(session.token, as);
      const chosen =
        organizations.find((o) => o.id === session.organizationId) ?? (organizations.length === 1 ? organizations[0] : undefined);
      if (!chosen) return send(200, { view: "choose-organization", csrfToken, organizations });
      if (chosen.id !== session.organizationId) setSession(reply, request, context.secret, { ...session, organizationId: chosen.id });
      return send(200, { view: "app", csrfToken, organization: chosen, organizationCount: organizations.length, signedInAs: as });
    };
    // Trailing slashes are ignored app-wide, so this is `/dashboard` too.
    app.get(`${DASHBOARD_PATH}/`, { schema: { hide: true } }, page);
    app.get(`${DASHBOARD_PATH}/*`, { schema: { hide: true } }, page);

    app.post(`${DASHBOARD_PATH}/session`, { schema: { hide: true, body: SignInBody } }, async (request, reply) => {
      requireSameOrigin(request);
      const token = request.body.token.trim();
      const as = await context.access.signedInAs(token);
      if (!as) throw new DashboardTokenRefused();
      const session = newSession(token, context.now().getTime());
      const organizations = await context.access.organizations(token, as);
      const only = organizations.length === 1 ? organizations[0]! : null;
      setSession(reply, request, context.secret, { ...session, organizationId: only?.id ?? as.organizationId });
      return reply.code(201).send({ organizations, organization_id: only?.id ?? null });
    });

    app.post(`${DASHBOARD_PATH}/session/organization`, { schema: { hide: true, body: OrganizationChoiceBody } }, async (request, reply) => {
      const visit = await visitOf(context, request);
      if ("missing" in visit) throw new Unauthorized();
      requireCsrf(context, request, visit.session);
      const organizations = await context.access.organizations(visit.session.token, visit.as);
      const chosen = organizations.find((o) => o.id === request.body.organization_id);
      if (!chosen) throw new ResourceNotFound("Organization not found");
      setSession(reply, request, context.secret, { ...visit.session, organizationId: chosen.id });
      return reply.code(204).send();
    });

    app.post(`${DASHBOARD_PATH}/session/sign-out`, { schema: { hide: true } }, async (request, reply) => {
      const visit = await visitOf(context, request);
      if (!("missing" in visit)) requireCsrf(context, request, visit.session);
      clearSession(reply, request);
      return reply.code(204).send();
    });
  };
