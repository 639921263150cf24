import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { organizationScope, principalOf } from "../../http/auth.ts";
import { ORGANIZATION_SIDE, requireAuth, responses } from "../../http/route-auth.ts";
import { IdParams } from "../../schema/primitives.ts";
import { plainJsonResponse } from "../../http/serialization.ts";
import { ListResourcePayment, Payment, PaymentListQuery } from "./payments.schemas.ts";
import type { PaymentService } from "./payments.service.ts";

const READ = ["payments:read"];
const tags = ["payments"];

/** Every `/v1/payments/*` route. A payment is a card or a generic one (a union): the mapper builds the exact shape. */
export const paymentRoutes =
  (payments: PaymentService): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.get(
      "/v1/payments/",
      {
        ...plainJsonResponse,
        config: requireAuth(ORGANIZATION_SIDE, READ),
        schema: {
          operationId: "payments:list",
          tags,
          summary: "List Payments",
          querystring: PaymentListQuery,
          response: responses({ 200: ListResourcePayment }),
        },
      },
      async (request) => payments.list(request.query, organizationScope(principalOf(request))),
    );

    app.get(
      "/v1/payments/:id",
      {
        ...plainJsonResponse,
        config: requireAuth(ORGANIZATION_SIDE, READ),
        schema: {
          operationId: "payments:get",
          tags,
          summary: "Get Payment",
          params: IdParams,
          response: responses({ 200: Payment }, { notFound: true }),
        },
      },
      async (request) => payments.get(request.params.id, organizationScope(principalOf(request))),
    );
  };
