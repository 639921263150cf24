import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { organizationScope, principalOf } from "../../kit/auth.ts";
import { ORGANIZATION_SIDE, requireAuth, responses } from "../../kit/routes.ts";
import { IdParams } from "../../kit/schema.ts";
import { plainJsonResponse } from "../../kit/serialization.ts";
import { ListResourceSubscription, Subscription, SubscriptionListQuery } from "./subscriptions.schemas.ts";
import type { SubscriptionService } from "./subscriptions.service.ts";

const READ = ["subscriptions:read", "subscriptions:write"];
const tags = ["subscriptions"];
// A subscription embeds a discount (a union of four shapes), a customer and a product with its
// price unions; the mapper already builds the exact shape, so it is sent as plain JSON.

/** Every `/v1/subscriptions/*` route. */
export const subscriptionRoutes =
  (subscriptions: SubscriptionService): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.get(
      "/v1/subscriptions/",
      {
        ...plainJsonResponse,
        config: requireAuth(ORGANIZATION_SIDE, READ),
        schema: {
          operationId: "subscriptions:list",
          tags,
          summary: "List Subscriptions",
          description: "List subscriptions. Filter by metadata with `metadata[key]=value`.",
          querystring: SubscriptionListQuery,
          response: responses({ 200: ListResourceSubscription }),
        },
      },
      async (request) => subscriptions.list(request.query, organizationScope(principalOf(request))),
    );

    app.get(
      "/v1/subscriptions/:id",
      {
        ...plainJsonResponse,
        config: requireAuth(ORGANIZATION_SIDE, READ),
        schema: {
          operationId: "subscriptions:get",
          tags,
          summary: "Get Subscription",
          params: IdParams,
          response: responses({ 200: Subscription }, { notFound: true }),
        },
      },
      async (request) => subscriptions.get(request.params.id, organizationScope(principalOf(request))),
    );
  };
