import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { organizationScope, principalOf } from "../../http/auth.ts";
import { ORGANIZATION_SIDE, requireAuth, responses } from "../../http/route-auth.ts";
import { IdParams } from "../../schema/primitives.ts";
import { plainJsonResponse } from "../../http/serialization.ts";
import type { BenefitGrantService } from "./benefit-grant-reads.service.ts";
import { BenefitGrantsOfBenefitQuery, ListResourceBenefitGrant } from "./benefit-grants.schemas.ts";
import { BenefitCreate } from "./benefit-inputs.schemas.ts";
import { Benefit } from "./benefits.schemas.ts";
import type { BenefitService } from "./benefits.service.ts";

/** Every `/v1/benefits/*` route. */
export const benefitRoutes =
  (benefits: BenefitService, grants: BenefitGrantService): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.post(
      "/v1/benefits/",
      {
        config: requireAuth(ORGANIZATION_SIDE, ["benefits:write"]),
        schema: {
          operationId: "benefits:create",
          tags: ["benefits"],
          summary: "Create Benefit",
          body: BenefitCreate,
          response: responses({ 201: Benefit }),
        },
      },
      async (request, reply) => reply.code(201).send(await benefits.create(principalOf(request), request.body)),
    );

    app.get(
      "/v1/benefits/:id",
      {
        config: requireAuth(ORGANIZATION_SIDE, ["benefits:read", "benefits:write"]),
        schema: {
          operationId: "benefits:get",
          tags: ["benefits"],
          summary: "Get Benefit",
          params: IdParams,
          response: responses({ 200: Benefit }, { notFound: true }),
        },
      },
      async (request) => benefits.get(request.params.id, organizationScope(principalOf(request))),
    );

    app.get(
      "/v1/benefits/:id/grants",
      {
        // The grant's properties are an undiscriminated union of objects: serialized as built.
        ...plainJsonResponse,
        config: requireAuth(ORGANIZATION_SIDE, ["benefits:read", "benefits:write"]),
        schema: {
          operationId: "benefits:grants",
          tags: ["benefits"],
          summary: "List Benefit Grants",
          description: "List the grants of a benefit, newest first.",
          params: IdParams,
          querystring: BenefitGrantsOfBenefitQuery,
          response: responses({ 200: ListResourceBenefitGrant }, { notFound: true }),
        },
      },
      async (request) => grants.ofBenefit(request.params.id, request.query, organizationScope(principalOf(request))),
    );
  };
