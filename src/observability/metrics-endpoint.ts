import { createHash, timingSafeEqual } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { FastifyInstance } from "fastify";
import type { PrometheusMetrics } from "./prometheus-metrics.ts";

const digest = (text: string) => createHash("sha256").update(text).digest();

/**
 * Every request's route template, method, status and duration, counted once it is answered. A
 * callback hook rather than an async one: no promise per request for synchronous work.
 */
export function observeRequests(app: FastifyInstance, metrics: PrometheusMetrics): void {
  app.addHook("onResponse", (request, reply, done) => {
    metrics.observeRequest({
      method: request.method,
      route: request.routeOptions.url,
      statusCode: reply.statusCode,
      seconds: reply.elapsedTime / 1000,
    });
    done();
  });
}

/** `GET /metrics` on the API port, for a bearer of `token` only (compared in constant time). */
export function registerMetricsRoute(app: FastifyInstance, metrics: PrometheusMetrics, token: string): void {
  const expected = digest(`Bearer ${token}`);
  app.get("/metrics", { schema: { hide: true } }, async (request, reply) => {
    const given = digest(request.headers.authorization ?? "");
    if (!timingSafeEqual(given, expected)) {
      return reply
        .code(401)
        .header("www-authenticate", 'Bearer realm="metrics"')
        .type("application/json")
        .send(JSON.stringify({ error: "Unauthorized", detail: "The metrics need the METRICS_TOKEN bearer token." }));
    }
    return reply.type(metrics.registry.contentType).send(await metrics.registry.metrics());
  });
}

/** `/metrics` alone, without a credential, on a port of its own (`METRICS_PORT`); resolves once listening. */
export async function startMetricsServer(metrics: PrometheusMetrics, host: string, port: number): Promise<Server> {
  const server = createServer((request, response) => {
    if (request.method !== "GET" || request.url?.split("?")[0] !== "/metrics") {
      response.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ detail: "Not Found" }));
      return;
    }
    metrics.registry.metrics().then(
      (text) => response.writeHead(200, { "content-type": metrics.registry.contentType }).end(text),
      () => response.writeHead(503, { "content-type": "text/plain" }).end("metrics unavailable\n"),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => resolve());
  });
  return server;
}
