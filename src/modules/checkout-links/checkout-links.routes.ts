import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { Type } from "@sinclair/typebox";
import { organizationScope, principalOf } from "../../http/auth.ts";
import { NoContent, ORGANIZATION_SIDE, requireAuth, responses } from "../../http/route-auth.ts";
import { Uuid4 } from "../../schema/primitives.ts";
import type { CheckoutLinkRedirect } from "./checkout-links.redirect.ts";
import {
  CheckoutLink,
  CheckoutLinkCreate,
  CheckoutLinkListQuery,
  CheckoutLinkSecretParams,
  CheckoutLinkUpdate,
  ListResourceCheckoutLink,
} from "./checkout-links.schemas.ts";
import type { CheckoutLinkService } from "./checkout-links.service.ts";

const READ = ["checkout_links:read", "checkout_links:write"];
const WRITE = ["checkout_links:write"];
const tags = ["checkout-links"];
const CheckoutLinkIdParams = Type.Object({ id: Uuid4({ description: "The checkout link ID." }) });

/** Every `/v1/checkout-links/*` route: the merchant's, and the public redirect a link's URL points at. */
export const checkoutLinkRoutes =
  (links: CheckoutLinkService, redirect: CheckoutLinkRedirect): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.get(
      "/v1/checkout-links/",
      {
        config: requireAuth(ORGANIZATION_SIDE, READ),
        schema: {
          operationId: "checkout-links:list",
          tags,
          summary: "List Checkout Links",
          querystring: CheckoutLinkListQuery,
          response: responses({ 200: ListResourceCheckoutLink }),
        },
      },
      async (request) => links.list(request.query, organizationScope(principalOf(request))),
    );

    app.post(
      "/v1/checkout-links/",
      {
        config: requireAuth(ORGANIZATION_SIDE, WRITE),
        schema: {
          operationId: "checkout-links:create",
          tags,
          summary: "Create Checkout Link",
          body: CheckoutLinkCreate,
          response: responses({ 201: CheckoutLink }),
        },
      },
      async (request, reply) => reply.code(201).send(await links.create(request.body, organizationScope(principalOf(request)))),
    );

    app.get(
      "/v1/checkout-links/:id",
      {
        config: requireAuth(ORGANIZATION_SIDE, READ),
        schema: {
          operationId: "checkout-links:get",
          tags,
          summary: "Get Checkout Link",
          params: CheckoutLinkIdParams,
          response: responses({ 200: CheckoutLink }, { notFound: true }),
        },
      },
      async (request) => links.get(request.params.id, organizationScope(principalOf(request))),
    );

    app.patch(
      "/v1/checkout-links/:id",
      {
        config: requireAuth(ORGANIZATION_SIDE, WRITE),
        schema: {
          operationId: "checkout-links:update",
          tags,
          summary: "Update Checkout Link",
          params: CheckoutLinkIdParams,
          body: CheckoutLinkUpdate,
          response: responses({ 200: CheckoutLink }, { notFound: true }),
        },
      },
      async (request) => links.update(request.params.id, request.body, organizationScope(principalOf(request))),
    );

    app.delete(
      "/v1/checkout-links/:id",
      {
        config: requireAuth(ORGANIZATION_SIDE, WRITE),
        schema: {
          operationId: "checkout-links:delete",
          tags,
          summary: "Delete Checkout Link",
          params: CheckoutLinkIdParams,
          response: responses({ 204: NoContent }, { notFound: true }),
        },
      },
      async (request, reply) => {
        await links.delete(request.params.id, organizationScope(principalOf(request)));
        return reply.code(204).send();
      },
    );

    // Not in the reference document: the hosted service serves it as the link's `url`. Every query
    // parameter is read by the service (prefill, tracking) or passed on to the checkout page.
    app.get(
      "/v1/checkout-links/:client_secret/redirect",
      {
        schema: {
          operationId: "checkout-links:redirect",
          tags,
          summary: "Open Checkout Link",
          description: "Opens a new checkout session from the link and redirects (307) to its page.",
          params: CheckoutLinkSecretParams,
          response: responses(
            { 307: Type.Null({ description: "Redirect to the new checkout session's page." }) },
            { auth: false, notFound: true },
          ),
        },
      },
      async (request, reply) => {
        const search = request.url.includes("?") ? request.url.slice(request.url.indexOf("?") + 1) : "";
        const location = await redirect.open(request.params.client_secret, new URLSearchParams(search));
        return reply.header("cache-control", "no-store").redirect(location, 307);
      },
    );
  };
