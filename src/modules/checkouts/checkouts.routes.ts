import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { Type } from "@sinclair/typebox";
import { organizationScope, principalOf } from "../../kit/auth.ts";
import { ErrorBody } from "../../kit/errors.ts";
import { plainJsonResponse } from "../../kit/serialization.ts";
import { ORGANIZATION_SIDE, requireAuth, responses } from "../../kit/routes.ts";
import { Uuid4 } from "../../kit/schema.ts";
import { CheckoutCreate, CheckoutListQuery, CheckoutUpdate } from "./checkouts.inputs.ts";
import { Checkout } from "./checkouts.schemas.ts";
import type { CheckoutService } from "./checkouts.service.ts";

const CheckoutIdParams = Type.Object({ id: Uuid4({ description: "The checkout session ID." }) });

const CheckoutList = Type.Object(
  {
    items: Type.Array(Checkout),
    pagination: Type.Object({ total_count: Type.Integer(), max_page: Type.Integer() }, { title: "Pagination" }),
  },
  { title: "ListResource_Checkout_" },
);

const READ = ["checkouts:read", "checkouts:write"];
const WRITE = ["checkouts:write"];

export const checkoutRoutes =
  (checkouts: CheckoutService): FastifyPluginAsyncTypebox =>
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
  };
