import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { responses } from "../../http/route-auth.ts";
import { CustomerOrganizationData, PortalOrganizationParams } from "./portal-organizations.schemas.ts";
import type { PortalOrganizationService } from "./portal-organizations.service.ts";

/** `GET /v1/customer-portal/organizations/{slug}`: public, as the portal page reads it before anyone signs in. */
export const portalOrganizationRoutes =
  (service: PortalOrganizationService): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.get(
      "/v1/customer-portal/organizations/:slug",
      {
        schema: {
          operationId: "customer_portal:organizations:get",
          tags: ["customer_portal", "organizations"],
          summary: "Get Organization",
          description: "Get a customer portal's organization by slug.",
          params: PortalOrganizationParams,
          response: responses({ 200: CustomerOrganizationData }, { auth: false, notFound: true }),
        },
      },
      async (request) => service.get(request.params.slug),
    );
  };
