import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { Type } from "@sinclair/typebox";
import { organizationScope, principalOf } from "../../http/auth.ts";
import { NoContent, ORGANIZATION_SIDE, requireAuth, responses } from "../../http/route-auth.ts";
import {
  MetricDashboardCreate,
  MetricDashboardIdParams,
  MetricDashboardListQuery,
  MetricDashboardSchema,
  MetricDashboardUpdate,
} from "./metric-dashboards.schemas.ts";
import type { MetricDashboardService } from "./metric-dashboards.service.ts";

const READ = ["metrics:read"];
const WRITE = ["metrics:write"];
const tags = ["metrics"];

/** `/v1/metrics/dashboards`: saved metrics dashboards (a plain array, no pagination, as the reference lists them). */
export const metricDashboardRoutes =
  (dashboards: MetricDashboardService): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.get(
      "/v1/metrics/dashboards",
      {
        config: requireAuth(ORGANIZATION_SIDE, READ),
        schema: {
          operationId: "metrics:list_dashboards",
          tags,
          summary: "List Metric Dashboards",
          description: "List user-defined metric dashboards.",
          querystring: MetricDashboardListQuery,
          response: responses({ 200: Type.Array(MetricDashboardSchema) }),
        },
      },
      async (request) => dashboards.list(request.query, organizationScope(principalOf(request))),
    );

    app.post(
      "/v1/metrics/dashboards",
      {
        config: requireAuth(ORGANIZATION_SIDE, WRITE),
        schema: {
          operationId: "metrics:create_dashboard",
          tags,
          summary: "Create Metric Dashboard",
          description: "Create a user-defined metric dashboard.",
          body: MetricDashboardCreate,
          response: responses({ 201: MetricDashboardSchema }),
        },
      },
      async (request, reply) => reply.code(201).send(await dashboards.create(principalOf(request), request.body)),
    );

    app.get(
      "/v1/metrics/dashboards/:id",
      {
        config: requireAuth(ORGANIZATION_SIDE, READ),
        schema: {
          operationId: "metrics:get_dashboard",
          tags,
          summary: "Get Metric Dashboard",
          description: "Get a user-defined metric dashboard by ID.",
          params: MetricDashboardIdParams,
          response: responses({ 200: MetricDashboardSchema }, { notFound: true }),
        },
      },
      async (request) => dashboards.get(request.params.id, organizationScope(principalOf(request))),
    );

    app.patch(
      "/v1/metrics/dashboards/:id",
      {
        config: requireAuth(ORGANIZATION_SIDE, WRITE),
        schema: {
          operationId: "metrics:update_dashboard",
          tags,
          summary: "Update Metric Dashboard",
          description: "Update a user-defined metric dashboard.",
          params: MetricDashboardIdParams,
          body: MetricDashboardUpdate,
          response: responses({ 200: MetricDashboardSchema }, { notFound: true }),
        },
      },
      async (request) => dashboards.update(request.params.id, request.body, organizationScope(principalOf(request))),
    );

    app.delete(
      "/v1/metrics/dashboards/:id",
      {
        config: requireAuth(ORGANIZATION_SIDE, WRITE),
        schema: {
          operationId: "metrics:delete_dashboard",
          tags,
          summary: "Delete Metric Dashboard",
          description: "Delete a user-defined metric dashboard.",
          params: MetricDashboardIdParams,
          response: responses({ 204: NoContent }, { notFound: true }),
        },
      },
      async (request, reply) => {
        await dashboards.delete(request.params.id, organizationScope(principalOf(request)));
        return reply.code(204).send();
      },
    );
  };
