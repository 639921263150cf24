import http from "node:http";
import type { AddressInfo } from "node:net";

/** One span as an OTLP/HTTP JSON export carries it, with its attributes flattened. */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string | undefined;
  name: string;
  /** OTLP's numbers: 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  kind: number;
  attributes: Record<string, string | number | boolean>;
  links: { traceId: string; spanId: string }[];
  scope: string;
  /** The exporting process's `service.name`. */
  service: string;
}

interface OtlpValue {
  stringValue?: string;
  intValue?: number | string;
  boolValue?: boolean;
  doubleValue?: number;
}
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes?: { key: string; value: OtlpValue }[];
  links?: { traceId: string; spanId: string }[];
}
interface OtlpExport {
  resourceSpans?: {
    resource: { attributes: { key: string; value: OtlpValue }[] };
    scopeSpans: { scope: { name: string }; spans: OtlpSpan[] }[];
  }[];
}

const valueOf = (value: OtlpValue) =>
  value.stringValue ?? (value.intValue !== undefined ? Number(value.intValue) : (value.boolValue ?? value.doubleValue ?? ""));

export interface OtlpReceiver {
  /** The base address, as `OTEL_EXPORTER_OTLP_ENDPOINT` takes it. */
  endpoint: string;
  spans: ReceivedSpan[];
  /** Every request received, by path and content type (`POST /v1/traces application/json`). */
  requests: string[];
  close(): Promise<void>;
}

/** A local OpenTelemetry collector stand-in: accepts OTLP/HTTP JSON on POST /v1/traces and keeps the spans. */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const requests: string[] = [];
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      requests.push(`${request.method} ${request.url} ${request.headers["content-type"]}`);
      if (request.method !== "POST" || request.url !== "/v1/traces") {
        response.writeHead(404).end();
        return;
      }
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as OtlpExport;
      for (const resource of body.resourceSpans ?? []) {
        const service = resource.resource.attributes.find(({ key }) => key === "service.name");
        for (const scope of resource.scopeSpans)
          for (const span of scope.spans)
            spans.push({
              traceId: span.traceId,
              spanId: span.spanId,
              parentSpanId: span.parentSpanId || undefined,
              name: span.name,
              kind: span.kind,
              attributes: Object.fromEntries((span.attributes ?? []).map(({ key, value }) => [key, valueOf(value)])),
              links: (span.links ?? []).map(({ traceId, spanId }) => ({ traceId, spanId })),
              scope: scope.scope.name,
              service: service ? String(valueOf(service.value)) : "",
            });
      }
      response.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    spans,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
