import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { Type } from "@sinclair/typebox";
import { organizationScope, principalOf } from "../../http/auth.ts";
import { ORGANIZATION_SIDE, requireAuth, responses } from "../../http/route-auth.ts";
import { Uuid4 } from "../../schema/primitives.ts";
import { CustomerMeter, CustomerMeterListQuery, ListResourceCustomerMeter } from "./customer-meters.schemas.ts";
import type { CustomerMeterService } from "./customer-meters.service.ts";

const READ = ["customer_meters:read"];
const tags = ["customer_meters"];
const CustomerMeterIdParams = Type.Object({ id: Uuid4({ description: "The customer meter ID." }) });

/** Every `/v1/customer-meters/*` route: read only (credits come from `meter_credit` grants, usage from events). */
export const customerMeterRoutes =
  (customerMeters: CustomerMeterService): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.get(
      "/v1/customer-meters/",
      {
        config: requireAuth(ORGANIZATION_SIDE, READ),
        schema: {
          operationId: "customer_meters:list",
          tags,
          summary: "List Customer Meters",
          querystring: CustomerMeterListQuery,
          response: responses({ 200: ListResourceCustomerMeter }),
        },
      },
      async (request) => customerMeters.list(request.query, organizationScope(principalOf(request))),
    );

    app.get(
      "/v1/customer-meters/:id",
      {
        config: requireAuth(ORGANIZATION_SIDE, READ),
        schema: {
          operationId: "customer_meters:get",
          tags,
          summary: "Get Customer Meter",
          params: CustomerMeterIdParams,
          response: responses({ 200: CustomerMeter }, { notFound: true }),
        },
      },
      async (request) => customerMeters.get(request.params.id, organizationScope(principalOf(request))),
    );
  };
