import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { organizationScope, principalOf } from "../../http/auth.ts";
import { ORGANIZATION_SIDE, requireAuth, responses } from "../../http/route-auth.ts";
import { metricsLimits } from "./metrics-limits.ts";
import { METRICS_EXPORT_FILENAME, metricsCsv } from "./metrics.export.ts";
import { MetricsLimits, MetricsQuery, MetricsResponse } from "./metrics.schemas.ts";
import { metricsResponse, type MetricsService } from "./metrics.service.ts";

const READ = ["metrics:read"];
const tags = ["metrics"];

export const metricRoutes =
  (metrics: MetricsService): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.get(
      "/v1/metrics/",
      {
        config: requireAuth(ORGANIZATION_SIDE, READ),
        schema: {
          operationId: "metrics:get",
          tags,
          summary: "Get Metrics",
          description: "Get metrics about your orders and subscriptions.\n\nCurrency values are output in cents.",
          querystring: MetricsQuery,
          response: responses({ 200: MetricsResponse }),
        },
      },
      async (request) => metricsResponse(await metrics.compute(request.query, organizationScope(principalOf(request)))),
    );

    app.get(
      "/v1/metrics/export",
      {
        config: requireAuth(ORGANIZATION_SIDE, READ),
        schema: {
          operationId: "metrics:export",
          tags,
          summary: "Export Metrics",
          description: "Export metrics as a CSV file.",
          querystring: MetricsQuery,
          response: responses({}),
        },
      },
      async (request, reply) => {
        const result = await metrics.compute(request.query, organizationScope(principalOf(request)));
        return reply
          .type("text/csv; charset=utf-8")
          .header("content-disposition", `attachment; filename="${METRICS_EXPORT_FILENAME}"`)
          .send(metricsCsv(result));
      },
    );

    app.get(
      "/v1/metrics/limits",
      {
        config: requireAuth(ORGANIZATION_SIDE, READ),
        schema: {
          operationId: "metrics:limits",
          tags,
          summary: "Get Metrics Limits",
          description: "Get the interval limits for the metrics endpoint.",
          response: responses({ 200: MetricsLimits }),
        },
      },
      async () => metricsLimits(),
    );
  };
