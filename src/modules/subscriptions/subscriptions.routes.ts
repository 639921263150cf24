import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { organizationScope, principalOf, type OrganizationScope } from "../../http/auth.ts";
import { ErrorBody } from "../../http/errors.ts";
import { ORGANIZATION_SIDE, requireAuth, responses } from "../../http/route-auth.ts";
import { IdParams } from "../../schema/primitives.ts";
import { plainJsonResponse } from "../../http/serialization.ts";
import { ListResourceSubscription, Subscription, SubscriptionListQuery } from "./subscriptions.schemas.ts";
import type { SubscriptionService } from "./subscriptions.service.ts";
import { SubscriptionCreate, SubscriptionExportQuery, SubscriptionUpdate } from "./subscription-inputs.schemas.ts";

/** The change flow, handed in by the composition root (features never import flows). */
export interface SubscriptionUpdates {
  update(id: string, input: SubscriptionUpdate, allowed: OrganizationScope): Promise<Subscription>;
  revoke(id: string, allowed: OrganizationScope): Promise<Subscription>;
}

const READ = ["subscriptions:read", "subscriptions:write"];
const WRITE = ["subscriptions:write"];
const tags = ["subscriptions"];
// A subscription embeds a discount (a union of four shapes), a customer and a product with its
// price unions; the mapper already builds the exact shape, so it is sent as plain JSON.

/** Every `/v1/subscriptions/*` route. */
export const subscriptionRoutes =
  (subscriptions: SubscriptionService, updates: SubscriptionUpdates): FastifyPluginAsyncTypebox =>
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

    app.post(
      "/v1/subscriptions/",
      {
        ...plainJsonResponse,
        config: requireAuth(ORGANIZATION_SIDE, WRITE),
        schema: {
          operationId: "subscriptions:create",
          tags,
          summary: "Create Subscription",
          description: "Create a subscription to a free recurring product; a paid one starts through a checkout.",
          body: SubscriptionCreate,
          response: responses({ 201: Subscription }),
        },
      },
      async (request, reply) => reply.code(201).send(await subscriptions.create(request.body, organizationScope(principalOf(request)))),
    );

    app.get(
      "/v1/subscriptions/export",
      {
        config: requireAuth(ORGANIZATION_SIDE, READ),
        schema: {
          operationId: "subscriptions:export",
          tags,
          summary: "Export Subscriptions",
          description: "Export subscriptions as a CSV file.",
          querystring: SubscriptionExportQuery,
          response: responses({}),
        },
      },
      async (request, reply) =>
        reply
          .type("text/csv; charset=utf-8")
          .header("content-disposition", 'attachment; filename="subscriptions.csv"')
          .send(await subscriptions.export(request.query, organizationScope(principalOf(request)))),
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

    app.patch(
      "/v1/subscriptions/:id",
      {
        ...plainJsonResponse,
        config: requireAuth(ORGANIZATION_SIDE, WRITE),
        schema: {
          operationId: "subscriptions:update",
          tags,
          summary: "Update Subscription",
          params: IdParams,
          body: SubscriptionUpdate,
          response: responses({ 200: Subscription, 400: ErrorBody, 402: ErrorBody, 409: ErrorBody, 410: ErrorBody }, { notFound: true }),
        },
      },
      async (request) => updates.update(request.params.id, request.body, organizationScope(principalOf(request))),
    );

    app.delete(
      "/v1/subscriptions/:id",
      {
        ...plainJsonResponse,
        config: requireAuth(ORGANIZATION_SIDE, WRITE),
        schema: {
          operationId: "subscriptions:revoke",
          tags,
          summary: "Revoke Subscription",
          params: IdParams,
          response: responses({ 200: Subscription, 409: ErrorBody }, { notFound: true }),
        },
      },
      async (request) => updates.revoke(request.params.id, organizationScope(principalOf(request))),
    );
  };
