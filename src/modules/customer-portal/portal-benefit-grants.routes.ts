import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { principalOf } from "../../http/auth.ts";
import { PORTAL_SIDE, requireAuth, responses } from "../../http/route-auth.ts";
import { IdParams } from "../../schema/primitives.ts";
import { plainJsonResponse } from "../../http/serialization.ts";
import {
  CustomerBenefitGrant,
  CustomerBenefitGrantListQuery,
  CustomerBenefitGrantUpdate,
  ListResourceCustomerBenefitGrant,
} from "./portal-benefit-grants.schemas.ts";
import type { PortalBenefitGrantService } from "./portal-benefit-grants.service.ts";

const READ = ["customer_portal:read", "customer_portal:write"];
const WRITE = ["customer_portal:write"];
const tags = ["customer_portal", "benefit-grants"];

/** Every `/v1/customer-portal/benefit-grants/*` route: the session's own grants (serialized as built: unions of objects). */
export const portalBenefitGrantRoutes =
  (grants: PortalBenefitGrantService): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.get(
      "/v1/customer-portal/benefit-grants/",
      {
        ...plainJsonResponse,
        config: requireAuth(PORTAL_SIDE, READ),
        schema: {
          operationId: "customer_portal:benefit-grants:list",
          tags,
          summary: "List Benefit Grants",
          description: "List benefits grants of the authenticated customer.",
          querystring: CustomerBenefitGrantListQuery,
          response: responses({ 200: ListResourceCustomerBenefitGrant }),
        },
      },
      async (request) => grants.list(request.query, principalOf(request)),
    );

    app.get(
      "/v1/customer-portal/benefit-grants/:id",
      {
        ...plainJsonResponse,
        config: requireAuth(PORTAL_SIDE, READ),
        schema: {
          operationId: "customer_portal:benefit-grants:get",
          tags,
          summary: "Get Benefit Grant",
          params: IdParams,
          response: responses({ 200: CustomerBenefitGrant }, { notFound: true }),
        },
      },
      async (request) => grants.get(request.params.id, principalOf(request)),
    );

    app.patch(
      "/v1/customer-portal/benefit-grants/:id",
      {
        ...plainJsonResponse,
        config: requireAuth(PORTAL_SIDE, WRITE),
        schema: {
          operationId: "customer_portal:benefit-grants:update",
          tags,
          summary: "Update Benefit Grant",
          params: IdParams,
          body: CustomerBenefitGrantUpdate,
          response: responses({ 200: CustomerBenefitGrant }, { notFound: true }),
        },
      },
      async (request) => grants.update(request.params.id, request.body, principalOf(request)),
    );
  };
