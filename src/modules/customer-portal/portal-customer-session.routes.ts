import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { principalOf } from "../../http/auth.ts";
import { PORTAL_SIDE, requireAuth, responses } from "../../http/route-auth.ts";
import type { CustomerSessionService } from "../customers/customer-sessions.service.ts";
import { CustomerCustomerSession, PortalAuthenticatedUser } from "./portal-customer-session.schemas.ts";
import { portalSessionOf } from "./portal-session.ts";

/** `/v1/customer-portal/customer-session/`: what the calling session is. */
export const portalCustomerSessionRoutes =
  (sessions: CustomerSessionService): FastifyPluginAsyncTypebox =>
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
  };
