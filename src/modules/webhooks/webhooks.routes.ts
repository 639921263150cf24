import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { organizationScope, principalOf } from "../../http/auth.ts";
import { ORGANIZATION_SIDE, requireAuth, responses, NoContent } from "../../http/route-auth.ts";
import {
  ListResourceWebhookDelivery,
  ListResourceWebhookEndpoint,
  WebhookDeliveryListQuery,
  WebhookEndpoint,
  WebhookEndpointCreate,
  WebhookEndpointIdParams,
  WebhookEndpointListQuery,
  WebhookEndpointUpdate,
  WebhookEventIdParams,
} from "./webhooks.schemas.ts";
import type { WebhookService } from "./webhooks.service.ts";

const READ = requireAuth(ORGANIZATION_SIDE, ["webhooks:read", "webhooks:write"]);
const WRITE = requireAuth(ORGANIZATION_SIDE, ["webhooks:write"]);
const tags = ["webhooks"];
/** An empty body: typed `undefined` so that the route sends nothing rather than `null`. */

export const webhookRoutes =
  (webhooks: WebhookService): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.get(
      "/v1/webhooks/endpoints",
      {
        config: READ,
        schema: {
          operationId: "webhooks:list_webhook_endpoints",
          tags,
          summary: "List Webhook Endpoints",
          querystring: WebhookEndpointListQuery,
          response: responses({ 200: ListResourceWebhookEndpoint }),
        },
      },
      async (request) => webhooks.list(request.query, organizationScope(principalOf(request))),
    );

    app.post(
      "/v1/webhooks/endpoints",
      {
        config: WRITE,
        schema: {
          operationId: "webhooks:create_webhook_endpoint",
          tags,
          summary: "Create Webhook Endpoint",
          body: WebhookEndpointCreate,
          response: responses({ 201: WebhookEndpoint }),
        },
      },
      async (request, reply) => reply.code(201).send(await webhooks.create(request.body, principalOf(request))),
    );

    app.get(
      "/v1/webhooks/endpoints/:id",
      {
        config: READ,
        schema: {
          operationId: "webhooks:get_webhook_endpoint",
          tags,
          summary: "Get Webhook Endpoint",
          params: WebhookEndpointIdParams,
          response: responses({ 200: WebhookEndpoint }, { notFound: true }),
        },
      },
      async (request) => webhooks.get(request.params.id, organizationScope(principalOf(request))),
    );

    app.patch(
      "/v1/webhooks/endpoints/:id",
      {
        config: WRITE,
        schema: {
          operationId: "webhooks:update_webhook_endpoint",
          tags,
          summary: "Update Webhook Endpoint",
          params: WebhookEndpointIdParams,
          body: WebhookEndpointUpdate,
          response: responses({ 200: WebhookEndpoint }, { notFound: true }),
        },
      },
      async (request) => webhooks.update(request.params.id, request.body, organizationScope(principalOf(request))),
    );

    app.patch(
      "/v1/webhooks/endpoints/:id/secret",
      {
        config: WRITE,
        schema: {
          operationId: "webhooks:reset_webhook_endpoint_secret",
          tags,
          summary: "Reset Webhook Endpoint Secret",
          description: "Regenerate a webhook endpoint secret.",
          params: WebhookEndpointIdParams,
          response: responses({ 200: WebhookEndpoint }, { notFound: true }),
        },
      },
      async (request) => webhooks.rotateSecret(request.params.id, organizationScope(principalOf(request))),
    );

    app.delete(
      "/v1/webhooks/endpoints/:id",
      {
        config: WRITE,
        schema: {
          operationId: "webhooks:delete_webhook_endpoint",
          tags,
          summary: "Delete Webhook Endpoint",
          params: WebhookEndpointIdParams,
          response: responses({ 204: NoContent }, { notFound: true }),
        },
      },
      async (request, reply) => {
        await webhooks.delete(request.params.id, organizationScope(principalOf(request)));
        return reply.code(204).send();
      },
    );

    app.get(
      "/v1/webhooks/deliveries",
      {
        config: READ,
        schema: {
          operationId: "webhooks:list_webhook_deliveries",
          tags,
          summary: "List Webhook Deliveries",
          querystring: WebhookDeliveryListQuery,
          response: responses({ 200: ListResourceWebhookDelivery }),
        },
      },
      async (request) => webhooks.listDeliveries(request.query, organizationScope(principalOf(request))),
    );

    app.post(
      "/v1/webhooks/events/:id/redeliver",
      {
        config: WRITE,
        schema: {
          operationId: "webhooks:redeliver_webhook_event",
          tags,
          summary: "Redeliver Webhook Event",
          description: "Schedules the event to be sent again to its endpoint.",
          params: WebhookEventIdParams,
          response: responses({ 202: NoContent }, { notFound: true }),
        },
      },
      async (request, reply) => {
        await webhooks.redeliver(request.params.id, organizationScope(principalOf(request)));
        return reply.code(202).send();
      },
    );
  };
