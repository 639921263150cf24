import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { Config } from "../../config.ts";
import { TooManyRequests, rateLimitHook } from "../../http/rate-limit.ts";
import { bodyAjv } from "../../http/validation.ts";
import { themeOf, type Theme } from "../../pages/html-page.ts";
import {
  CODE_FORM_PATH,
  CustomerSelectionRequired,
  CustomerSessionCodeInvalidOrExpired,
  CustomerSessionCodeRequest,
  signInRateLimits,
} from "../customer-portal/customer-portal.steps.ts";
import { portalPath, sessionCookie, type PortalOrganization } from "./portal-page.session.ts";
import { portalNotFound, sameOrigin, signInPage, type Params, type PortalPageContext } from "./portal-page.visit.ts";

// Signing in on the portal page without a session: an email form ("Email me a sign-in code"), the
// code form, then the session's cookie, as the session link gives it. Also the single-use links of
// emails (`?sign_in=`), exchanged here for the cookie.

const isCodeRequest = bodyAjv.compile(CustomerSessionCodeRequest);
const MAX_LINK_TOKEN_LENGTH = 256;

/** The portal of a session just opened: its cookie set, the address cleaned of any secret. */
export const enterPortal = (reply: FastifyReply, request: FastifyRequest, slug: string, token: string, target: string) =>
  reply
    .header("set-cookie", sessionCookie(slug, token, request.protocol === "https"))
    .header("referrer-policy", "no-referrer")
    .header("cache-control", "no-store")
    .redirect(`${portalPath(slug)}${target}`, 303);

/** `?sign_in=<token>` of an email's link: exchanged once for the session, else the sign-in form with why. */
export async function redeemSignInLink(
  context: PortalPageContext,
  request: FastifyRequest,
  reply: FastifyReply,
  organization: PortalOrganization,
  token: string,
) {
  const redeemed = token.length <= MAX_LINK_TOKEN_LENGTH ? await context.services.signIn.redeemLink(organization.id, token) : null;
  if (redeemed) return enterPortal(reply, request, organization.slug, redeemed.token, redeemed.targetPath);
  return signInPage(context, reply, organization, themeOf(request.query), {
    step: "email",
    email: "",
    code: 401,
    problem: "This sign-in link has expired or was already used. Ask for a sign-in code instead.",
  });
}

const TOO_MANY = "Too many attempts. Wait a few minutes, then try again.";

/** The forms of the sign-in steps: asking for a code, entering it. */
export async function registerSignInRoutes(app: FastifyInstance, context: PortalPageContext, config: Config): Promise<void> {
  const limits = signInRateLimits(config, "page");
  const limitRequest = rateLimitHook(app, limits.request);
  const limitAuthenticate = rateLimitHook(app, limits.authenticate);

  /** The organization of the address for a form posted from this origin; or the page already sent. */
  const formOf = async (request: FastifyRequest<{ Params: Params }>, reply: FastifyReply, theme: Theme) => {
    const organization = await context.services.sessions.organization(request.params.slug);
    if (!organization) return { sent: await portalNotFound(context, reply, theme) };
    if (!sameOrigin(request))
      return {
        sent: await signInPage(context, reply, organization, theme, {
          step: "email",
          email: "",
          code: 403,
          problem: "This form was sent from another site and was not accepted.",
        }),
      };
    return { organization, form: (request.body ?? {}) as Record<string, unknown> };
  };
  /** Whether the limit is spent: then the step is shown again with why. */
  const spent = async (limit: (request: FastifyRequest) => Promise<void>, request: FastifyRequest) => {
    try {
      await limit(request);
      return false;
    } catch (error) {
      if (error instanceof TooManyRequests) return true;
      throw error;
    }
  };

  app.get<{ Params: Params }>(`/:slug/portal${CODE_FORM_PATH}`, { schema: { hide: true } }, async (request, reply) => {
    const theme = themeOf(request.query);
    const organization = await context.services.sessions.organization(request.params.slug);
    if (!organization) return portalNotFound(context, reply, theme);
    return signInPage(context, reply, organization, theme, { step: "code", email: null, code: 200 });
  });

  app.post<{ Params: Params }>("/:slug/portal/sign-in", { schema: { hide: true } }, async (request, reply) => {
    const theme = themeOf(request.query);
    const posted = await formOf(request, reply, theme);
    if ("sent" in posted) return posted.sent;
    const { organization, form } = posted;
    const email = typeof form.email === "string" ? form.email.trim() : "";
    const customerId = typeof form.customer_id === "string" && form.customer_id !== "" ? form.customer_id : undefined;
    const input = { email, organization_id: organization.id, ...(customerId ? { customer_id: customerId } : {}) };
    if (!isCodeRequest(input))
      return signInPage(context, reply, organization, theme, { step: "email", email, code: 422, problem: "Enter a valid email address." });
    if (await spent(limitRequest, request))
      return signInPage(context, reply, organization, theme, { step: "email", email, code: 429, problem: TOO_MANY });
    try {
      await context.services.signIn.request(input, request.ip);
    } catch (error) {
      if (!(error instanceof CustomerSelectionRequired)) throw error;
      return signInPage(context, reply, organization, theme, { step: "choose", email, customers: error.customers, code: 409 });
    }
    return signInPage(context, reply, organization, theme, { step: "code", email, code: 200 });
  });

  app.post<{ Params: Params }>(`/:slug/portal${CODE_FORM_PATH}`, { schema: { hide: true } }, async (request, reply) => {
    const theme = themeOf(request.query);
    const posted = await formOf(request, reply, theme);
    if ("sent" in posted) return posted.sent;
    const { organization, form } = posted;
    // Codes are upper case: what a customer types in lower case is still their code.
    const code = typeof form.code === "string" ? form.code.trim().toUpperCase().slice(0, 64) : "";
    if (await spent(limitAuthenticate, request))
      return signInPage(context, reply, organization, theme, { step: "code", email: null, code: 429, problem: TOO_MANY });
    try {
      const { token } = await context.services.signIn.authenticate(code, request.ip, organization.id);
      return enterPortal(reply, request, organization.slug, token, theme ? `?theme=${theme}` : "");
    } catch (error) {
      if (!(error instanceof CustomerSessionCodeInvalidOrExpired)) throw error;
      return signInPage(context, reply, organization, theme, {
        step: "code",
        email: null,
        code: 401,
        problem: "This code is invalid or has expired.",
      });
    }
  });
}
