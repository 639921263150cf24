import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { Type } from "@sinclair/typebox";
import type { Config } from "../../config.ts";
import { principalOf } from "../../http/auth.ts";
import { ErrorBody } from "../../http/errors.ts";
import { rateLimitHook } from "../../http/rate-limit.ts";
import { PORTAL_SIDE, requireAuth, responses } from "../../http/route-auth.ts";
import type { CustomerSessionService } from "../customers/customer-sessions.service.ts";
import {
  CustomerCustomerSession,
  CustomerSelectionRequiredResponse,
  CustomerSessionCodeAuthenticateRequest,
  CustomerSessionCodeAuthenticateResponse,
  CustomerSessionCodeRequest,
  PortalAuthenticatedUser,
} from "./portal-customer-session.schemas.ts";
import { signInRateLimits } from "./portal-sign-in.limits.ts";
import type { PortalSignInService } from "./portal-sign-in.service.ts";
import { portalSessionOf } from "./portal-session.ts";

/** Not in the reference's document (the hosted service marks these two private): served and documented here. */
const SIGN_IN_TAGS = ["customer_portal", "customer-session", "private"];
const signInErrors = { 429: ErrorBody };

/** `/v1/customer-portal/customer-session/`: what the calling session is, and signing in by email code. */
export const portalCustomerSessionRoutes =
  (sessions: CustomerSessionService, signIn: PortalSignInService, config: Config): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.get(
      "/v1/customer-portal/customer-session/introspect",
      {
        config: requireAuth(PORTAL_SIDE, ["customer_portal:read", "customer_portal:write"]),
        schema: {
          operationId: "customer_portal:customer-session:introspect",
          tags: ["customer_portal", "customer-session"],
          summary: "Introspect Customer Session",
          response: responses({ 200: CustomerCustomerSession }),
        },
      },
      async (request) => sessions.introspect(portalSessionOf(principalOf(request))),
    );

    app.get(
      "/v1/customer-portal/customer-session/user",
      {
        config: requireAuth(PORTAL_SIDE, ["customer_portal:read", "customer_portal:write"]),
        schema: {
          operationId: "customer_portal:customer-session:get_authenticated_user",
          tags: ["customer_portal", "customer-session"],
          summary: "Get Authenticated Portal User",
          response: responses({ 200: PortalAuthenticatedUser }),
        },
      },
      async (request) => sessions.authenticatedUser(portalSessionOf(principalOf(request))),
    );

    const limits = signInRateLimits(config, "api");

    app.post(
      "/v1/customer-portal/customer-session/request",
      {
        preHandler: rateLimitHook(app, limits.request),
        schema: {
          operationId: "customer_portal:customer-session:request",
          tags: SIGN_IN_TAGS,
          summary: "Request Customer Session Code",
          description:
            "Emails a 6-character sign-in code, valid 15 minutes and usable once, to the organization's customer with this email. " +
            "The answer is the same whether or not the organization or the email is known (nothing is sent then). " +
            "Not part of the reference document (a private route of the hosted service).",
          body: CustomerSessionCodeRequest,
          response: {
            202: Type.Null({ description: "Accepted: a code is on its way if the email is known." }),
            409: CustomerSelectionRequiredResponse,
            ...signInErrors,
            ...responses({}, { auth: false }),
          },
        },
      },
      async (request, reply) => reply.code(202).send(await signIn.request(request.body, request.ip)),
    );

    app.post(
      "/v1/customer-portal/customer-session/authenticate",
      {
        preHandler: rateLimitHook(app, limits.authenticate),
        schema: {
          operationId: "customer_portal:customer-session:authenticate",
          tags: SIGN_IN_TAGS,
          summary: "Authenticate Customer Session Code",
          description:
            "Exchanges a sign-in code for a customer session token (one hour). A wrong, expired or used code answers 401; " +
            "5 wrong codes from one client void the codes it asked for. Not part of the reference document (a private route of the hosted service).",
          body: CustomerSessionCodeAuthenticateRequest,
          response: { 200: CustomerSessionCodeAuthenticateResponse, 401: ErrorBody, ...signInErrors, ...responses({}, { auth: false }) },
        },
      },
      async (request) => signIn.authenticate(request.body.code, request.ip),
    );
  };
