import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { Type, type TSchema } from "@sinclair/typebox";
import { organizationScope, principalOf } from "../../http/auth.ts";
import { ErrorBody } from "../../http/errors.ts";
import { plainJsonResponse } from "../../http/serialization.ts";
import { ORGANIZATION_SIDE, requireAuth, responses } from "../../http/route-auth.ts";
import { Uuid4 } from "../../schema/primitives.ts";
import { ListResource } from "../../schema/pagination.ts";
import { CheckoutConfirm, CheckoutCreate, CheckoutListQuery, CheckoutUpdate, CheckoutUpdatePublic } from "./checkout-inputs.schemas.ts";
import type { CheckoutClientService } from "./checkouts.client.service.ts";
import { Checkout, CheckoutPublic, CheckoutPublicConfirmed } from "./checkouts.schemas.ts";
import type { CheckoutService } from "./checkouts.service.ts";

const CheckoutIdParams = Type.Object({ id: Uuid4({ description: "The checkout session ID." }) });

const CheckoutList = ListResource(Checkout, { title: "ListResource_Checkout_" });

const ClientSecretParams = Type.Object({
  client_secret: Type.String({ maxLength: 256, description: "The checkout session client secret." }),
});

// Error bodies are written pre-serialized; typed loosely so the reply type stays the success body's.
const GONE: Record<number, TSchema> = { 410: ErrorBody };
const CLOSED: Record<number, TSchema> = { 403: ErrorBody, 410: ErrorBody };
const PAYMENT: Record<number, TSchema> = { 400: ErrorBody, 403: ErrorBody, 410: ErrorBody };

const READ = ["checkouts:read", "checkouts:write"];
const WRITE = ["checkouts:write"];

/** Every `/v1/checkouts/*` route: the merchant's (access token) and the buyer's (client secret in the path). */
export const checkoutRoutes =
  (checkouts: CheckoutService, client: CheckoutClientService): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.get(
      "/v1/checkouts/",
      {
        ...plainJsonResponse,
        config: requireAuth(ORGANIZATION_SIDE, READ),
        schema: {
          operationId: "checkouts:list",
          tags: ["checkouts"],
          summary: "List Checkout Sessions",
          description: "List checkout sessions.",
          querystring: CheckoutListQuery,
          response: responses({ 200: CheckoutList }),
        },
      },
      async (request) => checkouts.list(request.query, organizationScope(principalOf(request))),
    );

    app.post(
      "/v1/checkouts/",
      {
        ...plainJsonResponse,
        config: requireAuth(ORGANIZATION_SIDE, WRITE),
        schema: {
          operationId: "checkouts:create",
          tags: ["checkouts"],
          summary: "Create Checkout Session",
          description: "Create a checkout session.",
          body: CheckoutCreate,
          response: responses({ 201: Checkout }),
        },
      },
      async (request, reply) => reply.code(201).send(await checkouts.create(request.body, organizationScope(principalOf(request)))),
    );

    app.get(
      "/v1/checkouts/:id",
      {
        ...plainJsonResponse,
        config: requireAuth(ORGANIZATION_SIDE, READ),
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

    app.patch(
      "/v1/checkouts/:id",
      {
        ...plainJsonResponse,
        config: requireAuth(ORGANIZATION_SIDE, WRITE),
        schema: {
          operationId: "checkouts:update",
          tags: ["checkouts"],
          summary: "Update Checkout Session",
          description: "Update a checkout session.",
          params: CheckoutIdParams,
          body: CheckoutUpdate,
          response: { ...responses({ 200: Checkout }, { notFound: true }), 403: ErrorBody },
        },
      },
      async (request) => checkouts.update(request.params.id, request.body, organizationScope(principalOf(request))),
    );

    app.get(
      "/v1/checkouts/client/:client_secret",
      {
        ...plainJsonResponse,
        schema: {
          operationId: "checkouts:client_get",
          tags: ["checkouts"],
          summary: "Get Checkout Session from Client",
          description: "Get a checkout session by client secret.",
          params: ClientSecretParams,
          response: { ...GONE, ...responses({ 200: CheckoutPublic }, { auth: false, notFound: true }) },
        },
      },
      async (request) => client.get(request.params.client_secret),
    );

    app.patch(
      "/v1/checkouts/client/:client_secret",
      {
        ...plainJsonResponse,
        schema: {
          operationId: "checkouts:client_update",
          tags: ["checkouts"],
          summary: "Update Checkout Session from Client",
          description: "Update a checkout session by client secret.",
          params: ClientSecretParams,
          body: CheckoutUpdatePublic,
          response: { ...CLOSED, ...responses({ 200: CheckoutPublic }, { auth: false, notFound: true }) },
        },
      },
      async (request) => client.update(request.params.client_secret, request.body),
    );

    app.post(
      "/v1/checkouts/client/:client_secret/confirm",
      {
        ...plainJsonResponse,
        schema: {
          operationId: "checkouts:client_confirm",
          tags: ["checkouts"],
          summary: "Confirm Checkout Session from Client",
          description: "Confirm a checkout session by client secret; orders and subscriptions are created once the payment is processed.",
          params: ClientSecretParams,
          body: CheckoutConfirm,
          response: { ...PAYMENT, ...responses({ 200: CheckoutPublicConfirmed }, { auth: false, notFound: true }) },
        },
      },
      async (request) => client.confirm(request.params.client_secret, request.body),
    );
  };
