import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { organizationScope, principalOf } from "../../http/auth.ts";
import { NoContent, ORGANIZATION_SIDE, requireAuth, responses } from "../../http/route-auth.ts";
import { IdParams } from "../../schema/primitives.ts";
import { Discount, DiscountCreate, DiscountListQuery, DiscountUpdate, ListResourceDiscount } from "./discounts.schemas.ts";
import type { DiscountService } from "./discounts.service.ts";

const READ = ["discounts:read", "discounts:write"];
const WRITE = ["discounts:write"];
const tags = ["discounts"];

export const discountRoutes =
  (discounts: DiscountService): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.get(
      "/v1/discounts/",
      {
        config: requireAuth(ORGANIZATION_SIDE, READ),
        schema: {
          operationId: "discounts:list",
          tags,
          summary: "List Discounts",
          querystring: DiscountListQuery,
          response: responses({ 200: ListResourceDiscount }),
        },
      },
      async (request) => discounts.list(request.query, organizationScope(principalOf(request))),
    );

    app.post(
      "/v1/discounts/",
      {
        config: requireAuth(ORGANIZATION_SIDE, WRITE),
        schema: {
          operationId: "discounts:create",
          tags,
          summary: "Create Discount",
          body: DiscountCreate,
          response: responses({ 201: Discount }),
        },
      },
      async (request, reply) => reply.code(201).send(await discounts.create(principalOf(request), request.body)),
    );

    app.get(
      "/v1/discounts/:id",
      {
        config: requireAuth(ORGANIZATION_SIDE, READ),
        schema: {
          operationId: "discounts:get",
          tags,
          summary: "Get Discount",
          params: IdParams,
          response: responses({ 200: Discount }, { notFound: true }),
        },
      },
      async (request) => discounts.get(request.params.id, organizationScope(principalOf(request))),
    );

    app.patch(
      "/v1/discounts/:id",
      {
        config: requireAuth(ORGANIZATION_SIDE, WRITE),
        schema: {
          operationId: "discounts:update",
          tags,
          summary: "Update Discount",
          description: "Changes the fields sent; once redeemed, what the discount takes off and for how long stay as they are.",
          params: IdParams,
          body: DiscountUpdate,
          response: responses({ 200: Discount }, { notFound: true }),
        },
      },
      async (request) => discounts.update(request.params.id, request.body, organizationScope(principalOf(request))),
    );

    app.delete(
      "/v1/discounts/:id",
      {
        config: requireAuth(ORGANIZATION_SIDE, WRITE),
        schema: {
          operationId: "discounts:delete",
          tags,
          summary: "Delete Discount",
          description: "No new checkout can apply it; subscriptions and checkouts holding it keep it.",
          params: IdParams,
          response: responses({ 204: NoContent }, { notFound: true }),
        },
      },
      async (request, reply) => {
        await discounts.delete(request.params.id, organizationScope(principalOf(request)));
        return reply.code(204).send();
      },
    );
  };
