/**
 * The CPU a traced `GET /v1/checkouts/{id}` spends in OpenTelemetry itself: its two spans (the
 * request's and its statement's, with the same attributes and a statement text as long as that
 * read's) built, ended and exported as OTLP/HTTP JSON to a receiver in a process of its own, by
 * export batch size. No database and no HTTP server: the figure is the SDK's and the exporter's
 * alone, steadier than a whole server's under a loaded machine. Interleaved rounds, one tracer
 * provider per batch size.
 *
 *   node --import tsx bench/span-export.ts   (BENCH_REQUESTS per measurement, default 20000;
 *   BENCH_ROUNDS, default 4; BENCH_BATCHES, default "512,128,2048"; BENCH_TEXT, statement characters, default 2000)
 */
import { context, SpanKind, trace } from "@opentelemetry/api";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { BasicTracerProvider, BatchSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { spawn } from "node:child_process";
import { loadavg } from "node:os";
import { percentile } from "./statistics.ts";

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 20_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 4);
const BATCHES = (process.env.BENCH_BATCHES ?? "512,128,2048").split(",").map(Number);
const STATEMENT = "select ".padEnd(Number(process.env.BENCH_TEXT ?? 2000), "x");

/**
 * A receiver that counts the spans it is sent (every one must arrive: a dropped span costs
 * nothing to export) in a process of its own, so its CPU is not counted here; `GET /` answers the count.
 */
async function startReceiver(): Promise<{ url: string; spans(): Promise<number>; stop(): void }> {
  const child = spawn(process.execPath, [
    "-e",
    `let spans = 0;
    require("node:http").createServer((q, s) => {
      const chunks = [];
      q.on("data", (c) => chunks.push(c)).on("end", () => {
        if (q.method === "GET") return s.end(String(spans));
        for (const r of JSON.parse(Buffer.concat(chunks)).resourceSpans) for (const scope of r.scopeSpans) spans += scope.spans.length;
        s.end("{}");
      });
    }).listen(0, "127.0.0.1", function () { console.log(this.address().port) })`,
  ]);
  const port = await new Promise<string>((resolve) => child.stdout.once("data", (data: Buffer) => resolve(data.toString().trim())));
  return {
    url: `http://127.0.0.1:${port}/v1/traces`,
    spans: async () => Number(await (await fetch(`http://127.0.0.1:${port}/`)).text()),
    stop: () => child.kill(),
  };
}

function tracerWithBatches(url: string, maxExportBatchSize: number) {
  const provider = new BasicTracerProvider({
    spanProcessors: [
      new BatchSpanProcessor(new OTLPTraceExporter({ url }), { maxExportBatchSize, maxQueueSize: Math.max(2048, maxExportBatchSize) }),
    ],
  });
  return { tracer: provider.getTracer("commerce-api"), provider };
}

/** One request's spans, as request-spans.ts and the pg instrumentation make them. */
async function tracedRequest(tracer: ReturnType<typeof tracerWithBatches>["tracer"], i: number): Promise<void> {
  const request = tracer.startSpan("GET /v1/checkouts/:id", {
    kind: SpanKind.SERVER,
    attributes: {
      "http.request.method": "GET",
      "url.path": "/v1/checkouts/00000000",
      "request.id": `req-${i}`,
      "http.route": "/v1/checkouts/:id",
    },
  });
  const statement = tracer.startSpan(
    "pg.query:SELECT bench",
    {
      kind: SpanKind.CLIENT,
      attributes: { "db.system.name": "postgresql", "db.namespace": "bench", "server.address": "127.0.0.1", "server.port": 5432 },
    },
    trace.setSpan(context.active(), request),
  );
  statement.setAttribute("db.query.text", `${STATEMENT}${i}`);
  await Promise.resolve();
  statement.end();
  request.setAttribute("http.response.status_code", 200);
  request.end();
}

async function main(): Promise<void> {
  const receiver = await startReceiver();
  console.log(
    `load average at start: ${loadavg()
      .map((n) => n.toFixed(1))
      .join(" ")}`,
  );
  const setups = BATCHES.map((batch) => ({ batch, ...tracerWithBatches(receiver.url, batch), rounds: [] as number[] }));
  const measure = async (setup: (typeof setups)[number], requests: number) => {
    const before = process.cpuUsage();
    for (let i = 0; i < requests; i += 1) {
      await tracedRequest(setup.tracer, i);
      // Each full batch waits for its export, as under a server's steady load (one export at a
      // time, on one kept-alive connection): a queue that outran its exports would drop spans,
      // which cost nothing to export.
      if ((2 * (i + 1)) % setup.batch === 0) await setup.provider.forceFlush();
    }
    await setup.provider.forceFlush();
    const used = process.cpuUsage(before);
    return (used.user + used.system) / requests;
  };
  for (const setup of setups) await measure(setup, 2_000);
  for (let round = 0; round < ROUNDS; round += 1) {
    for (const setup of round % 2 === 0 ? setups : [...setups].reverse()) setup.rounds.push(await measure(setup, REQUESTS));
  }
  const expected = 2 * (setups.length * 2_000 + setups.length * ROUNDS * REQUESTS);
  const received = await receiver.spans();
  if (received !== expected) console.log(`spans received ${received} of ${expected}: some were dropped, the figures are too low`);
  for (const setup of setups)
    console.log(
      `batches of ${String(setup.batch).padStart(4)}: ${percentile(setup.rounds, 50).toFixed(1)} µs of CPU per traced request (median; rounds ${setup.rounds.map((us) => us.toFixed(1)).join(", ")})`,
    );
  console.log(
    `load average at end: ${loadavg()
      .map((n) => n.toFixed(1))
      .join(" ")}`,
  );
  for (const setup of setups) await setup.provider.shutdown();
  receiver.stop();
}

await main();
