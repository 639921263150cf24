import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { organizationScope, principalOf } from "../../kit/auth.ts";
import { ErrorBody } from "../../kit/errors.ts";
import { ORGANIZATION_SIDE, requireAuth, responses } from "../../kit/routes.ts";
import { IdParams } from "../../kit/schema.ts";
import { plainJsonResponse } from "../../kit/serialization.ts";
import { ListResourceOrder, Order, OrderListQuery, OrderUpdate } from "./orders.schemas.ts";
import type { OrderService } from "./orders.service.ts";

const READ = ["orders:read"];
const WRITE = ["orders:write"];
const tags = ["orders"];
// An order embeds a discount (a union of four shapes) and a customer: fast-json-stringify would
// resolve those unions by validation on every item; the mapper already builds the exact shape.

export const orderRoutes =
  (service: OrderService): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.get(
      "/v1/orders/",
      {
        ...plainJsonResponse,
        config: requireAuth(ORGANIZATION_SIDE, READ),
        schema: {
          operationId: "orders:list",
          tags,
          summary: "List Orders",
          description: "List orders. Filter by metadata with `metadata[key]=value`.",
          querystring: OrderListQuery,
          response: responses({ 200: ListResourceOrder }),
        },
      },
      async (request) => service.list(request.query, organizationScope(principalOf(request))),
    );

    app.get(
      "/v1/orders/:id",
      {
        ...plainJsonResponse,
        config: requireAuth(ORGANIZATION_SIDE, READ),
        schema: {
          operationId: "orders:get",
          tags,
          summary: "Get Order",
          params: IdParams,
          response: responses({ 200: Order }, { notFound: true }),
        },
      },
      async (request) => service.get(request.params.id, { allowed: organizationScope(principalOf(request)) }),
    );

    app.patch(
      "/v1/orders/:id",
      {
        ...plainJsonResponse,
        config: requireAuth(ORGANIZATION_SIDE, WRITE),
        schema: {
          operationId: "orders:update",
          tags,
          summary: "Update Order",
          params: IdParams,
          body: OrderUpdate,
          response: responses({ 200: Order, 409: ErrorBody }, { notFound: true }),
        },
      },
      async (request) => service.update(request.params.id, request.body, { allowed: organizationScope(principalOf(request)) }),
    );
  };
