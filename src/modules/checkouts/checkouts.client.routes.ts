import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { Type, type TSchema } from "@sinclair/typebox";
import { ErrorBody } from "../../kit/errors.ts";
import { plainJsonResponse } from "../../kit/serialization.ts";
import { responses } from "../../kit/routes.ts";
import type { CheckoutClientService } from "./checkouts.client.service.ts";
import { CheckoutConfirm, CheckoutUpdatePublic } from "./checkouts.inputs.ts";
import { CheckoutPublic, CheckoutPublicConfirmed } from "./checkouts.public.schemas.ts";

const ClientSecretParams = Type.Object({ client_secret: Type.String({ maxLength: 256, description: "The checkout session client secret." }) });

// Error bodies are written pre-serialized; typed loosely so the reply type stays the success body's.
const GONE: Record<number, TSchema> = { 410: ErrorBody };
const CLOSED: Record<number, TSchema> = { 403: ErrorBody, 410: ErrorBody };
const PAYMENT: Record<number, TSchema> = { 400: ErrorBody, 403: ErrorBody, 410: ErrorBody };

/** The buyer's routes: the client secret in the path is the only credential. */
export const checkoutClientRoutes =
  (client: CheckoutClientService): FastifyPluginAsyncTypebox =>
  async (app) => {
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
