import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { organizationScope, principalOf } from "../../http/auth.ts";
import { ErrorBody } from "../../http/errors.ts";
import { ORGANIZATION_SIDE, requireAuth, responses } from "../../http/route-auth.ts";
import { IdParams } from "../../schema/primitives.ts";
import { DisputeListQuery } from "./dispute-inputs.schemas.ts";
import { Dispute, ListResourceDispute } from "./disputes.schemas.ts";
import type { DisputeService } from "./disputes.service.ts";

const tags = ["disputes"];

/** Every `/v1/disputes/*` route. */
export const disputeRoutes =
  (disputes: DisputeService): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.get(
      "/v1/disputes/",
      {
        config: requireAuth(ORGANIZATION_SIDE, ["disputes:read", "disputes:write"]),
        schema: {
          operationId: "disputes:list",
          tags,
          summary: "List Disputes",
          querystring: DisputeListQuery,
          response: responses({ 200: ListResourceDispute }),
        },
      },
      async (request) => disputes.list(request.query, organizationScope(principalOf(request))),
    );

    app.get(
      "/v1/disputes/:id",
      {
        config: requireAuth(ORGANIZATION_SIDE, ["disputes:read", "disputes:write"]),
        schema: {
          operationId: "disputes:get",
          tags,
          summary: "Get Dispute",
          params: IdParams,
          response: responses({ 200: Dispute }, { notFound: true }),
        },
      },
      async (request) => disputes.get(request.params.id, organizationScope(principalOf(request))),
    );

    app.post(
      "/v1/disputes/:id/accept",
      {
        config: requireAuth(ORGANIZATION_SIDE, ["disputes:write"]),
        schema: {
          operationId: "disputes:accept",
          tags,
          summary: "Accept Dispute",
          description: "Accept a dispute, conceding the chargeback: the processor closes it, settled as `lost`.",
          params: IdParams,
          // 502: ours, the processor refused to close the dispute (docs/decisions.md, "Disputes").
          response: responses({ 200: Dispute, 409: ErrorBody, 502: ErrorBody }, { notFound: true }),
        },
      },
      async (request) => disputes.accept(request.params.id, organizationScope(principalOf(request))),
    );
  };
