import { context, propagation, SpanKind, SpanStatusCode, trace, type Span } from "@opentelemetry/api";
import type { FastifyInstance, FastifyRequest } from "fastify";
import { tracer } from "./spans.ts";

const spans = new WeakMap<FastifyRequest, Span>();

/**
 * The server span of every request, started by the app's first hook and ended with its response:
 * named after the route template (`GET /v1/checkouts/:id`, never the raw path), with the request id
 * (a log line leads to its trace) and the path as the log shows it, secrets cut out (`redactPath`:
 * a client secret is a path segment). A `traceparent` header makes it the caller's child.
 *
 * Fastify's hooks rather than the http instrumentation's server span: that one reads a dozen
 * headers and socket fields into attributes on every request, and is renamed here anyway; this span
 * costs a third of the CPU (bench/README.md, "Metrics and tracing overhead").
 */
export function traceRequests(app: FastifyInstance, redactPath: (path: string) => string): void {
  app.addHook("onRequest", (request, _reply, done) => {
    const route = request.routeOptions.url;
    const parent = propagation.extract(context.active(), request.headers);
    const span = tracer.startSpan(
      route ? `${request.method} ${route}` : request.method,
      {
        kind: SpanKind.SERVER,
        attributes: {
          "http.request.method": request.method,
          "url.path": redactPath(request.url.split("?", 1)[0] ?? ""),
          "request.id": request.id,
          ...(route ? { "http.route": route } : {}),
        },
      },
      parent,
    );
    spans.set(request, span);
    const active = trace.setSpan(parent, span);
    // A body arrives in events of the socket's, which run outside this context: bound, its
    // listeners (the body parser, then the handler it calls) run in the request's span.
    if (request.headers["content-length"] !== undefined || request.headers["transfer-encoding"] !== undefined)
      context.bind(active, request.raw);
    // The hooks, the handler and everything they start run in the span.
    context.with(active, done);
  });
  app.addHook("onResponse", (request, reply, done) => {
    endSpan(request, (span) => {
      span.setAttribute("http.response.status_code", reply.statusCode);
      if (reply.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
    });
    done();
  });
  app.addHook("onRequestAbort", (request, done) => {
    endSpan(request, (span) => span.setStatus({ code: SpanStatusCode.ERROR, message: "aborted by the client" }));
    done();
  });
}

/** Ends a request's span once, whichever of its answer or its abort comes first. */
function endSpan(request: FastifyRequest, annotate: (span: Span) => void): void {
  const span = spans.get(request);
  if (!span) return;
  spans.delete(request);
  annotate(span);
  span.end();
}
