import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { organizationScope, principalOf } from "../../http/auth.ts";
import { ORGANIZATION_SIDE, requireAuth, responses } from "../../http/route-auth.ts";
import { plainJsonResponse } from "../../http/serialization.ts";
import type { BenefitGrantService } from "./benefit-grant-reads.service.ts";
import { BenefitGrantListQuery, ListResourceBenefitGrant } from "./benefit-grants.schemas.ts";

/** Every `/v1/benefit-grants/*` route: the grants of the organization's customers. */
export const benefitGrantRoutes =
  (grants: BenefitGrantService): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.get(
      "/v1/benefit-grants/",
      {
        // The grant's properties are an undiscriminated union of objects: serialized as built.
        ...plainJsonResponse,
        config: requireAuth(ORGANIZATION_SIDE, ["benefits:read", "benefits:write"]),
        schema: {
          operationId: "benefit-grants:list",
          tags: ["benefit-grants"],
          summary: "List Benefit Grants",
          description: "List the benefit grants of the organization's customers.",
          querystring: BenefitGrantListQuery,
          response: responses({ 200: ListResourceBenefitGrant }),
        },
      },
      async (request) => grants.list(request.query, organizationScope(principalOf(request))),
    );
  };
