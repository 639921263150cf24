import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { organizationScope, principalOf } from "../../http/auth.ts";
import { ORGANIZATION_SIDE, requireAuth, responses } from "../../http/route-auth.ts";
import { IdParams } from "../../schema/primitives.ts";
import { ListResourceProduct, ProductBenefitsUpdate, ProductCreate, ProductListQuery, ProductUpdate } from "./product-inputs.schemas.ts";
import { Product } from "./products.schemas.ts";
import type { ProductService } from "./products.service.ts";

const PRODUCTS_READ = ["products:read", "products:write"];
const PRODUCTS_WRITE = ["products:write"];

export const productRoutes =
  (products: ProductService): FastifyPluginAsyncTypebox =>
  async (app) => {
    const tags = ["products"];
    app.get(
      "/v1/products/",
      {
        config: requireAuth(ORGANIZATION_SIDE, PRODUCTS_READ),
        schema: {
          operationId: "products:list",
          tags,
          summary: "List Products",
          querystring: ProductListQuery,
          response: responses({ 200: ListResourceProduct }),
        },
      },
      async (request) => products.list(request.query, organizationScope(principalOf(request))),
    );

    app.post(
      "/v1/products/",
      {
        config: requireAuth(ORGANIZATION_SIDE, PRODUCTS_WRITE),
        schema: {
          operationId: "products:create",
          tags,
          summary: "Create Product",
          body: ProductCreate,
          response: responses({ 201: Product }),
        },
      },
      async (request, reply) => reply.code(201).send(await products.create(principalOf(request), request.body)),
    );

    app.get(
      "/v1/products/:id",
      {
        config: requireAuth(ORGANIZATION_SIDE, PRODUCTS_READ),
        schema: {
          operationId: "products:get",
          tags,
          summary: "Get Product",
          params: IdParams,
          response: responses({ 200: Product }, { notFound: true }),
        },
      },
      async (request) => products.get(request.params.id, organizationScope(principalOf(request))),
    );

    app.patch(
      "/v1/products/:id",
      {
        config: requireAuth(ORGANIZATION_SIDE, PRODUCTS_WRITE),
        schema: {
          operationId: "products:update",
          tags,
          summary: "Update Product",
          params: IdParams,
          body: ProductUpdate,
          response: responses({ 200: Product }, { notFound: true }),
        },
      },
      async (request) => products.update(request.params.id, request.body, organizationScope(principalOf(request))),
    );

    app.post(
      "/v1/products/:id/benefits",
      {
        config: requireAuth(ORGANIZATION_SIDE, PRODUCTS_WRITE),
        schema: {
          operationId: "products:update_benefits",
          tags,
          summary: "Update Product Benefits",
          params: IdParams,
          body: ProductBenefitsUpdate,
          response: responses({ 200: Product }, { notFound: true }),
        },
      },
      async (request) => products.setBenefits(request.params.id, request.body, organizationScope(principalOf(request))),
    );
  };
