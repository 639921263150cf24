import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { Type } from "@sinclair/typebox";
import type { Config } from "../../config.ts";
import { principalOf } from "../../http/auth.ts";
import { ErrorBody } from "../../http/errors.ts";
import { rateLimitHook } from "../../http/rate-limit.ts";
import { NoContent, requirePortalBilling, responses } from "../../http/route-auth.ts";
import {
  CustomerEmailUpdateCheckQuery,
  CustomerEmailUpdateRequest,
  CustomerEmailUpdateVerifyRequest,
  CustomerEmailUpdateVerifyResponse,
} from "./portal-email-update.schemas.ts";
import type { PortalEmailUpdateService } from "./portal-email-update.service.ts";
import { emailUpdateRateLimits } from "./portal-sign-in.limits.ts";
import { portalCustomerOf } from "./portal-session.ts";

const tags = ["customer_portal", "customers"];

/** A portal customer changing their email: a link to the new address, checked and then verified without a session. */
export const portalEmailUpdateRoutes =
  (service: PortalEmailUpdateService, config: Config): FastifyPluginAsyncTypebox =>
  async (app) => {
    const limited = rateLimitHook(app, emailUpdateRateLimits(config));

    app.post(
      "/v1/customer-portal/customers/me/email-update/request",
      {
        config: requirePortalBilling(["customer_portal:write"]),
        preHandler: limited,
        schema: {
          operationId: "customer_portal:customers:request_email_update",
          tags,
          summary: "Request Email Update",
          description: "Request an email change. Sends a verification link to the new email address.",
          body: CustomerEmailUpdateRequest,
          response: {
            202: Type.Null({ description: "Accepted: the verification email is on its way." }),
            429: ErrorBody,
            ...responses({}),
          },
        },
      },
      async (request, reply) => reply.code(202).send(await service.request(portalCustomerOf(principalOf(request)), request.body)),
    );

    app.get(
      "/v1/customer-portal/customers/me/email-update/check",
      {
        preHandler: limited,
        schema: {
          operationId: "customer_portal:customers:check_email_update",
          tags,
          summary: "Check Email Update Token",
          description: "Check whether an email update token is still valid, without using it.",
          querystring: CustomerEmailUpdateCheckQuery,
          response: { 204: NoContent, 401: ErrorBody, 429: ErrorBody, ...responses({}, { auth: false }) },
        },
      },
      async (request, reply) => {
        await service.check(request.query.token);
        return reply.code(204).send();
      },
    );

    app.post(
      "/v1/customer-portal/customers/me/email-update/verify",
      {
        preHandler: limited,
        schema: {
          operationId: "customer_portal:customers:verify_email_update",
          tags,
          summary: "Verify Email Update",
          description: "Verify an email update token and change the customer's email; answers a new customer session token.",
          body: CustomerEmailUpdateVerifyRequest,
          response: { 200: CustomerEmailUpdateVerifyResponse, 401: ErrorBody, 429: ErrorBody, ...responses({}, { auth: false }) },
        },
      },
      async (request) => service.verify(request.body.token),
    );
  };
