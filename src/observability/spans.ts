import { context, propagation, SpanKind, SpanStatusCode, trace, type Attributes, type Link } from "@opentelemetry/api";

/**
 * The one door to OpenTelemetry for the rest of the code: spans around work, the request's
 * annotations, and the trace context a job carries. Without a started SDK (tracing.ts) every call
 * here is a no-op of the API's, so the code reads the same whether tracing is on or off.
 */
export const tracer = trace.getTracer("commerce-api");

/** A span's kind by what the work is: a call to another service, a job taken from the queue, or in-process work. */
export type SpanRole = "client" | "consumer" | "internal";
const KINDS: Record<SpanRole, SpanKind> = { client: SpanKind.CLIENT, consumer: SpanKind.CONSUMER, internal: SpanKind.INTERNAL };

export interface SpanOptions {
  role?: SpanRole;
  attributes?: Attributes;
  /** The trace context (`traceparent`) of the work that caused this one: linked, not parented. */
  causedBy?: string | undefined;
  /** Starts a trace of its own (a job's), rather than a child of the current span. */
  root?: boolean;
}

/** Runs `work` inside a span named `name`, ended when it settles; a throw marks the span failed. */
export async function inSpan<T>(
  name: string,
  options: SpanOptions,
  work: (annotate: (attributes: Attributes) => void) => Promise<T>,
): Promise<T> {
  const links = linkTo(options.causedBy);
  return tracer.startActiveSpan(
    name,
    {
      kind: KINDS[options.role ?? "internal"],
      ...(options.attributes ? { attributes: options.attributes } : {}),
      ...(links ? { links } : {}),
      root: options.root ?? false,
    },
    async (span) => {
      try {
        return await work((attributes) => span.setAttributes(attributes));
      } catch (error) {
        span.recordException(error instanceof Error ? error : String(error));
        span.setStatus({ code: SpanStatusCode.ERROR });
        throw error;
      } finally {
        span.end();
      }
    },
  );
}

/** The W3C `traceparent` of the current span, for work started later elsewhere (a job); undefined when nothing is traced. */
export function currentTraceparent(): string | undefined {
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return carrier.traceparent;
}

function linkTo(traceparent: string | undefined): Link[] | undefined {
  if (!traceparent) return undefined;
  const spanContext = trace.getSpanContext(propagation.extract(context.active(), { traceparent }));
  return spanContext && trace.isSpanContextValid(spanContext) ? [{ context: spanContext }] : undefined;
}
