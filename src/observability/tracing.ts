import { createRequire } from "node:module";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { HttpInstrumentation } from "@opentelemetry/instrumentation-http";
import { PgInstrumentation } from "@opentelemetry/instrumentation-pg";
import { UndiciInstrumentation } from "@opentelemetry/instrumentation-undici";
import { NodeSDK } from "@opentelemetry/sdk-node";
import { BatchSpanProcessor } from "@opentelemetry/sdk-trace-base";

export const DEFAULT_SERVICE_NAME = "commerce-api";

/**
 * Query parameters whose values never reach a call's `url.full` (a request served records no
 * query: request-spans.ts): the session tokens and signed-link signatures of this API, a webhook
 * URL's own `token`, and the instrumentation's defaults (cloud storage signatures).
 */
const REDACTED_QUERY_PARAMETERS = [
  "customer_session_token",
  "member_session_token",
  "signature",
  "token",
  "sig",
  "Signature",
  "AWSAccessKeyId",
  "X-Goog-Signature",
];

/** Running tracing: `shutdown` exports the spans still buffered. */
export interface Tracing {
  shutdown(): Promise<void>;
}

/**
 * Starts OpenTelemetry tracing when an OTLP endpoint is configured (`OTEL_EXPORTER_OTLP_ENDPOINT`
 * or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`), else does nothing and returns null: the API's spans
 * stay no-ops. The SDK reads the other standard `OTEL_*` variables itself (headers, sampler,
 * resource attributes), as any OpenTelemetry service does. Spans go out as OTLP/HTTP JSON.
 */
export function startTracing(env: NodeJS.ProcessEnv = process.env): Tracing | null {
  if (!env.OTEL_EXPORTER_OTLP_ENDPOINT && !env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) return null;
  if (env.OTEL_SDK_DISABLED === "true") return null;
  const sdk = new NodeSDK({
    serviceName: env.OTEL_SERVICE_NAME || DEFAULT_SERVICE_NAME,
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter())],
    // Traces only: metrics are Prometheus's (/metrics), logs are pino's lines.
    metricReaders: [],
    logRecordProcessors: [],
    instrumentations: [
      // Calls made through node:http (Stripe's SDK); the requests served have their span from the
      // app's hooks (request-spans.ts), which costs less.
      new HttpInstrumentation({ disableIncomingRequestInstrumentation: true, redactedQueryParams: REDACTED_QUERY_PARAMETERS }),
      new UndiciInstrumentation(),
      // Statements of a request or a job only: the worker's polling would be a trace a second.
      // No span per pool checkout (one per statement under Kysely): a wait for a connection shows
      // as the gap before a statement, and as `db_pool_connections{state="waiting"}`.
      new PgInstrumentation({ requireParentSpan: true, ignoreConnectSpans: true }),
    ],
  });
  sdk.start();
  // The instrumentations patch a module when it is required. The app imports `pg` and the
  // `http` modules as ES modules, which those hooks do not see: requiring them here, once the
  // hooks are in place, patches the one shared copy (the prototypes every client uses).
  const require = createRequire(import.meta.url);
  for (const name of ["http", "https", "pg"]) require(name);
  return { shutdown: () => sdk.shutdown() };
}
