import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { Type } from "@sinclair/typebox";
import { organizationScope, principalOf } from "../../http/auth.ts";
import { ORGANIZATION_SIDE, requireAuth, responses } from "../../http/route-auth.ts";
import { Uuid4 } from "../../schema/primitives.ts";
import { MeterCreate, MeterListQuery, MeterQuantitiesQuery, MeterUpdate } from "./meter-inputs.schemas.ts";
import type { MeterQuantityService } from "./meter-quantities.service.ts";
import { ListResourceMeter, Meter, MeterQuantities } from "./meters.schemas.ts";
import type { MeterService } from "./meters.service.ts";

const READ = ["meters:read", "meters:write"];
const WRITE = ["meters:write"];
const tags = ["meters"];
const MeterIdParams = Type.Object({ id: Uuid4({ description: "The meter ID." }) });

export const meterRoutes =
  (meters: MeterService, quantities: MeterQuantityService): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.get(
      "/v1/meters/",
      {
        config: requireAuth(ORGANIZATION_SIDE, READ),
        schema: {
          operationId: "meters:list",
          tags,
          summary: "List Meters",
          querystring: MeterListQuery,
          response: responses({ 200: ListResourceMeter }),
        },
      },
      async (request) => meters.list(request.query, organizationScope(principalOf(request))),
    );

    app.post(
      "/v1/meters/",
      {
        config: requireAuth(ORGANIZATION_SIDE, WRITE),
        schema: { operationId: "meters:create", tags, summary: "Create Meter", body: MeterCreate, response: responses({ 201: Meter }) },
      },
      async (request, reply) => reply.code(201).send(await meters.create(principalOf(request), request.body)),
    );

    app.get(
      "/v1/meters/:id",
      {
        config: requireAuth(ORGANIZATION_SIDE, READ),
        schema: {
          operationId: "meters:get",
          tags,
          summary: "Get Meter",
          params: MeterIdParams,
          response: responses({ 200: Meter }, { notFound: true }),
        },
      },
      async (request) => meters.get(request.params.id, organizationScope(principalOf(request))),
    );

    app.patch(
      "/v1/meters/:id",
      {
        config: requireAuth(ORGANIZATION_SIDE, WRITE),
        schema: {
          operationId: "meters:update",
          tags,
          summary: "Update Meter",
          params: MeterIdParams,
          body: MeterUpdate,
          response: responses({ 200: Meter }, { notFound: true }),
        },
      },
      async (request) => meters.update(request.params.id, request.body, organizationScope(principalOf(request))),
    );

    app.get(
      "/v1/meters/:id/quantities",
      {
        config: requireAuth(ORGANIZATION_SIDE, READ),
        schema: {
          operationId: "meters:quantities",
          tags,
          summary: "Get Meter Quantities",
          description: "Quantities of a meter over a time range, per interval, answered from exact hourly pre-aggregates.",
          params: MeterIdParams,
          querystring: MeterQuantitiesQuery,
          response: responses({ 200: MeterQuantities }, { notFound: true }),
        },
      },
      async (request) => quantities.quantities(request.params.id, request.query, organizationScope(principalOf(request))),
    );
  };
