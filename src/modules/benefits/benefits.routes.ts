import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { organizationScope, principalOf } from "../../kit/auth.ts";
import { ORGANIZATION_SIDE, requireAuth, responses } from "../../kit/routes.ts";
import { IdParams } from "../../kit/schema.ts";
import { BenefitCreate } from "./benefit-inputs.schemas.ts";
import { Benefit } from "./benefits.schemas.ts";
import type { BenefitService } from "./benefits.service.ts";

/** Every `/v1/benefits/*` route. */
export const benefitRoutes =
  (benefits: BenefitService): FastifyPluginAsyncTypebox =>
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
  };
