import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { principalOf } from "../../http/auth.ts";
import { ErrorBody } from "../../http/errors.ts";
import { PORTAL_SIDE, requireAuth, requirePortalBilling, responses } from "../../http/route-auth.ts";
import { IdParams } from "../../schema/primitives.ts";
import { plainJsonResponse } from "../../http/serialization.ts";
import { portalCustomerOf } from "./portal-session.ts";
import {
  CustomerSubscription,
  CustomerSubscriptionListQuery,
  CustomerSubscriptionUpdate,
  ListResourceCustomerSubscription,
} from "./portal-subscriptions.schemas.ts";
import type { PortalSubscriptionService } from "./portal-subscriptions.service.ts";

const READ = ["customer_portal:read", "customer_portal:write"];
const WRITE = ["customer_portal:write"];
const tags = ["customer_portal", "subscriptions"];

/** Every `/v1/customer-portal/subscriptions/*` route: the session customer's own subscriptions. */
export const portalSubscriptionRoutes =
  (subscriptions: PortalSubscriptionService): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.get(
      "/v1/customer-portal/subscriptions/",
      {
        ...plainJsonResponse,
        config: requireAuth(PORTAL_SIDE, READ),
        schema: {
          operationId: "customer_portal:subscriptions:list",
          tags,
          summary: "List Subscriptions",
          description: "List subscriptions of the authenticated customer.",
          querystring: CustomerSubscriptionListQuery,
          response: responses({ 200: ListResourceCustomerSubscription }),
        },
      },
      async (request) => subscriptions.list(request.query, portalCustomerOf(principalOf(request))),
    );

    app.get(
      "/v1/customer-portal/subscriptions/:id",
      {
        ...plainJsonResponse,
        config: requireAuth(PORTAL_SIDE, READ),
        schema: {
          operationId: "customer_portal:subscriptions:get",
          tags,
          summary: "Get Subscription",
          params: IdParams,
          response: responses({ 200: CustomerSubscription }, { notFound: true }),
        },
      },
      async (request) => subscriptions.get(request.params.id, portalCustomerOf(principalOf(request))),
    );

    app.patch(
      "/v1/customer-portal/subscriptions/:id",
      {
        ...plainJsonResponse,
        config: requirePortalBilling(WRITE),
        schema: {
          operationId: "customer_portal:subscriptions:update",
          tags,
          summary: "Update Subscription",
          params: IdParams,
          body: CustomerSubscriptionUpdate,
          response: responses(
            { 200: CustomerSubscription, 400: ErrorBody, 402: ErrorBody, 409: ErrorBody, 410: ErrorBody },
            { notFound: true },
          ),
        },
      },
      async (request) => subscriptions.update(request.params.id, request.body, portalCustomerOf(principalOf(request))),
    );

    app.delete(
      "/v1/customer-portal/subscriptions/:id",
      {
        ...plainJsonResponse,
        config: requirePortalBilling(WRITE),
        schema: {
          operationId: "customer_portal:subscriptions:cancel",
          tags,
          summary: "Cancel Subscription",
          description: "Cancel a subscription of the authenticated customer at the end of its period.",
          params: IdParams,
          response: responses({ 200: CustomerSubscription }, { notFound: true }),
        },
      },
      async (request) => subscriptions.cancel(request.params.id, portalCustomerOf(principalOf(request))),
    );
  };
