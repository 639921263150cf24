import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { principalOf } from "../../kit/auth.ts";
import { PORTAL_SIDE, requireAuth, responses } from "../../kit/routes.ts";
import { CustomerPortalCustomer, CustomerPortalCustomerUpdate } from "./customers.schemas.ts";
import { portalCustomerOf } from "./session.ts";
import type { PortalCustomerService } from "./customers.service.ts";

const tags = ["customer_portal"];

export const portalCustomerRoutes =
  (service: PortalCustomerService): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.get(
      "/v1/customer-portal/customers/me",
      {
        config: requireAuth(PORTAL_SIDE, ["customer_portal:read", "customer_portal:write"]),
        schema: {
          operationId: "customer_portal:customers:get",
          tags,
          summary: "Get Customer",
          response: responses({ 200: CustomerPortalCustomer }),
        },
      },
      async (request) => service.get(portalCustomerOf(principalOf(request))),
    );

    app.patch(
      "/v1/customer-portal/customers/me",
      {
        config: requireAuth(PORTAL_SIDE, ["customer_portal:write"]),
        schema: {
          operationId: "customer_portal:customers:update",
          tags,
          summary: "Update Customer",
          body: CustomerPortalCustomerUpdate,
          response: responses({ 200: CustomerPortalCustomer }),
        },
      },
      async (request) => service.update(portalCustomerOf(principalOf(request)), request.body),
    );
  };
