import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { principalOf } from "../../kit/auth.ts";
import { ErrorBody } from "../../kit/errors.ts";
import { PORTAL_SIDE, requireAuth, responses } from "../../kit/routes.ts";
import { IdParams } from "../../kit/schema.ts";
import { CustomerOrder, CustomerOrderListQuery, CustomerOrderUpdate, ListResourceCustomerOrder } from "./orders.schemas.ts";
import type { PortalOrderService } from "./orders.service.ts";
import { portalCustomerOf } from "./session.ts";

const READ = ["customer_portal:read", "customer_portal:write"];
const WRITE = ["customer_portal:write"];
const tags = ["customer_portal", "orders"];

export const portalOrderRoutes =
  (service: PortalOrderService): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.get(
      "/v1/customer-portal/orders/",
      {
        config: requireAuth(PORTAL_SIDE, READ),
        schema: {
          operationId: "customer_portal:orders:list",
          tags,
          summary: "List Orders",
          description: "List orders of the authenticated customer.",
          querystring: CustomerOrderListQuery,
          response: responses({ 200: ListResourceCustomerOrder }),
        },
      },
      async (request) => service.list(request.query, portalCustomerOf(principalOf(request))),
    );

    app.get(
      "/v1/customer-portal/orders/:id",
      {
        config: requireAuth(PORTAL_SIDE, READ),
        schema: {
          operationId: "customer_portal:orders:get",
          tags,
          summary: "Get Order",
          description: "Get an order of the authenticated customer by ID.",
          params: IdParams,
          response: responses({ 200: CustomerOrder }, { notFound: true }),
        },
      },
      async (request) => service.get(request.params.id, portalCustomerOf(principalOf(request))),
    );

    app.patch(
      "/v1/customer-portal/orders/:id",
      {
        config: requireAuth(PORTAL_SIDE, WRITE),
        schema: {
          operationId: "customer_portal:orders:update",
          tags,
          summary: "Update Order",
          description: "Update the billing details of an order of the authenticated customer.",
          params: IdParams,
          body: CustomerOrderUpdate,
          response: responses({ 200: CustomerOrder, 409: ErrorBody }, { notFound: true }),
        },
      },
      async (request) => service.update(request.params.id, request.body, portalCustomerOf(principalOf(request))),
    );
  };
