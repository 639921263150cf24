import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { Type } from "@sinclair/typebox";
import { principalOf } from "../../http/auth.ts";
import { PORTAL_SIDE, requireAuth, responses } from "../../http/route-auth.ts";
import { Uuid4 } from "../../schema/primitives.ts";
import {
  CustomerCustomerMeter,
  ListResourceCustomerCustomerMeter,
  PortalCustomerMeterListQuery,
} from "../customer-meters/customer-meters.schemas.ts";
import type { CustomerMeterService } from "../customer-meters/customer-meters.steps.ts";
import { portalCustomerOf } from "./portal-session.ts";

const READ = ["customer_portal:read", "customer_portal:write"];
const tags = ["customer_portal", "customer_meters"];
const CustomerMeterIdParams = Type.Object({ id: Uuid4({ description: "The customer meter ID." }) });

/** Every `/v1/customer-portal/meters/*` route: the session's customer's meters (any member may read them). */
export const portalMeterRoutes =
  (customerMeters: CustomerMeterService): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.get(
      "/v1/customer-portal/meters/",
      {
        config: requireAuth(PORTAL_SIDE, READ),
        schema: {
          operationId: "customer_portal:customer_meters:list",
          tags,
          summary: "List Meters",
          querystring: PortalCustomerMeterListQuery,
          response: responses({ 200: ListResourceCustomerCustomerMeter }),
        },
      },
      async (request) => customerMeters.portalList(request.query, portalCustomerOf(principalOf(request))),
    );

    app.get(
      "/v1/customer-portal/meters/:id",
      {
        config: requireAuth(PORTAL_SIDE, READ),
        schema: {
          operationId: "customer_portal:customer_meters:get",
          tags,
          summary: "Get Customer Meter",
          params: CustomerMeterIdParams,
          response: responses({ 200: CustomerCustomerMeter }, { notFound: true }),
        },
      },
      async (request) => customerMeters.portalGet(request.params.id, portalCustomerOf(principalOf(request))),
    );
  };
