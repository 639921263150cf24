import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { ORGANIZATION_SIDE, requireAuth, responses } from "../../http/route-auth.ts";
import { metricsLimits } from "./metrics-limits.ts";
import { MetricsLimits } from "./metrics.schemas.ts";

const READ = ["metrics:read"];
const tags = ["metrics"];

export const metricRoutes = (): FastifyPluginAsyncTypebox => async (app) => {
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
