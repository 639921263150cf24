import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { organizationScope, principalOf } from "../../http/auth.ts";
import { ORGANIZATION_SIDE, requireAuth, responses } from "../../http/route-auth.ts";
import { IdParams } from "../../schema/primitives.ts";
import { plainJsonResponse } from "../../http/serialization.ts";
import { ExternalIdParams } from "../customers/customers.schemas.ts";
import { CustomerState } from "./customer-state.schemas.ts";
import type { CustomerStateService } from "./customer-state.service.ts";

const READ = ["customers:read", "customers:write"];
const tags = ["customers"];
const description =
  "The customer with its active subscriptions (active or trialing, those set to cancel at period end included) and its granted " +
  "benefits, computed on every request: a read right after a change sees it.";

/**
 * The two state reads of `/v1/customers/`: here rather than in customers.routes.ts because the
 * state reads subscriptions and benefit grants, features that themselves build on customers.
 * The state embeds unions (the customer's type, the grants' properties) that fast-json-stringify
 * would resolve by validation on every response; the mapper already builds the exact shape.
 */
export const customerStateRoutes =
  (states: CustomerStateService): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.get(
      "/v1/customers/external/:external_id/state",
      {
        ...plainJsonResponse,
        config: requireAuth(ORGANIZATION_SIDE, READ),
        schema: {
          operationId: "customers:get_state_external",
          tags,
          summary: "Get Customer State by External ID",
          description,
          params: ExternalIdParams,
          response: responses({ 200: CustomerState }, { notFound: true }),
        },
      },
      async (request) => states.getByExternalId(request.params.external_id, organizationScope(principalOf(request))),
    );

    app.get(
      "/v1/customers/:id/state",
      {
        ...plainJsonResponse,
        config: requireAuth(ORGANIZATION_SIDE, READ),
        schema: {
          operationId: "customers:get_state",
          tags,
          summary: "Get Customer State",
          description,
          params: IdParams,
          response: responses({ 200: CustomerState }, { notFound: true }),
        },
      },
      async (request) => states.get(request.params.id, organizationScope(principalOf(request))),
    );
  };
