import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { Type } from "@sinclair/typebox";
import { organizationScope, principalOf } from "../../kit/auth.ts";
import { ORGANIZATION_SIDE, requireAuth, responses } from "../../kit/routes.ts";
import { Uuid4 } from "../../kit/schema.ts";
import { Checkout } from "./checkouts.schemas.ts";
import type { CheckoutService } from "./checkouts.service.ts";

const CheckoutIdParams = Type.Object({ id: Uuid4({ description: "The checkout session ID." }) });

export const checkoutRoutes =
  (checkouts: CheckoutService): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.get(
      "/v1/checkouts/:id",
      {
        config: requireAuth(ORGANIZATION_SIDE, ["checkouts:read", "checkouts:write"]),
        schema: {
          operationId: "checkouts:get",
          tags: ["checkouts"],
          summary: "Get Checkout Session",
          description: "Get a checkout session by ID.",
          params: CheckoutIdParams,
          response: responses({ 200: Checkout }, { notFound: true }),
        },
      },
      async (request) => checkouts.get(request.params.id, organizationScope(principalOf(request))),
    );
  };
