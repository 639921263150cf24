/**
 * GET /v1/checkouts/{id} (three products) with Prometheus metrics (counted per request, scraped
 * every 5 s) and OpenTelemetry tracing on (every span exported over OTLP/HTTP to a receiver in the
 * bench process), side by side with the same app with both off. Each app runs in a child process
 * of its own, on a database of its own, seeded alike; the loads are interleaved.
 *
 *   node --import tsx bench/observability-overhead.ts   (BENCH_SECONDS per measurement, default 10; BENCH_ROUNDS, default 3)
 */
import autocannon from "autocannon";
import { randomBytes } from "node:crypto";
import { createServer } from "node:http";
import { loadavg } from "node:os";
import { buildApp } from "../src/app.ts";
import { loadConfig } from "../src/config.ts";
import { connect } from "../src/db/connection.ts";
import { migrateToLatest } from "../src/db/migrate.ts";
import { createAccessTokenService } from "../src/modules/organizations/access-tokens.service.ts";
import { createOrganizationService } from "../src/modules/organizations/organizations.service.ts";
import { createPrometheusMetrics } from "../src/observability/prometheus-metrics.ts";
import { startTracing } from "../src/observability/tracing.ts";
import { buildServices } from "../src/services.ts";
import { benchDatabase } from "./bench-database.ts";
import { seedProducts } from "./fixtures.ts";
import { percentile } from "./statistics.ts";
import { announceReady, compareInterleaved, cpuSeconds, withServerProcess } from "./harness.ts";

const SECONDS = Math.min(Number(process.env.BENCH_SECONDS ?? 10), 60);
const ROUNDS = Math.min(Number(process.env.BENCH_ROUNDS ?? 3), 10);
const CONNECTIONS = 50;
const POOL_SIZE = 10;
const SCRAPE_EVERY_MS = 5_000;
const METRICS_TOKEN = "bench-metrics-token-0123456789";
/** Which app a `--serve` child runs: set in the environment the parent forks it with. */
const MODE_VARIABLE = "BENCH_OBSERVABILITY";

type Ready = { port: number; path: string; token: string; pid: number };

/** Child: its database, seed and app, observed or not by MODE_VARIABLE; reports its port to the parent. */
async function serve(): Promise<void> {
  const observed = process.env[MODE_VARIABLE] === "on";
  // Before the app's modules are used, as the server's preload does (the endpoint comes from the parent).
  const tracing = observed ? startTracing() : null;
  const database = await benchDatabase(observed ? "bench-observed" : "bench-unobserved");
  const connection = connect(database.url, POOL_SIZE);
  await migrateToLatest(connection.db, connection.pool);
  const config = loadConfig({
    NODE_ENV: "production",
    LOG_LEVEL: "silent",
    CHECKOUT_BASE_URL: "https://checkout.bench",
    ...(observed ? { METRICS_TOKEN } : {}),
  });
  const deps = { db: connection.db, readDb: connection.db, config, secret: randomBytes(32).toString("hex"), now: () => new Date() };
  const org = await createOrganizationService(deps).create({ name: "Bench", slug: `bench-${database.name}` });
  const { token } = await createAccessTokenService(deps).createOrganizationToken({
    organization_id: org.id,
    comment: "bench",
    scopes: ["checkouts:read"],
    expires_in: null,
  });
  const services = buildServices(deps);
  const checkout = await services.checkouts.create({ products: await seedProducts(connection.db, org.id, 3) }, [org.id]);
  const metrics = observed ? createPrometheusMetrics(connection.db, connection.pool) : undefined;
  const app = await buildApp(deps, { logger: false, services, traced: tracing !== null, ...(metrics ? { metrics } : {}) });
  await app.listen({ host: "127.0.0.1", port: 0 });
  const ready: Ready = {
    port: (app.server.address() as { port: number }).port,
    path: `/v1/checkouts/${checkout.id}`,
    token,
    pid: process.pid,
  };
  announceReady(ready, async () => {
    await app.close();
    await tracing?.shutdown();
    await connection.close();
    await database.stop();
  });
}

/** An OTLP/HTTP receiver that counts the spans it is sent (JSON), as a collector would take them. */
async function startReceiver(): Promise<{ endpoint: string; spans: () => number; close(): void }> {
  let spans = 0;
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as {
        resourceSpans?: { scopeSpans: { spans: unknown[] }[] }[];
      };
      for (const resource of body.resourceSpans ?? []) for (const scope of resource.scopeSpans) spans += scope.spans.length;
      response.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    spans: () => spans,
    close: () => server.close(),
  };
}

/**
 * The server's CPU seconds and the requests it answered over the measured loads (warm-ups left
 * out), and its CPU per request in each of them (ms).
 */
type CpuTally = { seconds: number; requests: number; rounds: number[] };

async function load(ready: Ready, seconds: number, tally: CpuTally) {
  const cpuBefore = cpuSeconds(ready.pid);
  const result = await autocannon({
    url: `http://127.0.0.1:${ready.port}${ready.path}`,
    connections: CONNECTIONS,
    duration: seconds,
    headers: { authorization: `Bearer ${ready.token}` },
  });
  if (seconds === SECONDS) {
    const cpu = cpuSeconds(ready.pid) - cpuBefore;
    tally.seconds += cpu;
    tally.requests += result.requests.total;
    tally.rounds.push((cpu * 1000) / result.requests.total);
  }
  return result;
}

async function main(): Promise<void> {
  const receiver = await startReceiver();
  console.log(
    `load average at start: ${loadavg()
      .map((n) => n.toFixed(1))
      .join(" ")}`,
  );
  const limit = SECONDS * ROUNDS * 2 + 240;
  process.env[MODE_VARIABLE] = "off";
  await withServerProcess<Ready>(import.meta.url, limit, async (unobserved) => {
    process.env[MODE_VARIABLE] = "on";
    process.env.OTEL_EXPORTER_OTLP_ENDPOINT = receiver.endpoint;
    await withServerProcess<Ready>(import.meta.url, limit, async (observed) => {
      const scrape = async () => {
        const response = await fetch(`http://127.0.0.1:${observed.port}/metrics`, {
          headers: { authorization: `Bearer ${METRICS_TOKEN}` },
        });
        if (!response.ok) throw new Error(`/metrics answered ${response.status}`);
        return response.text();
      };
      await scrape();
      const scraper = setInterval(() => void scrape().catch((error: unknown) => console.error(error)), SCRAPE_EVERY_MS);
      const off: CpuTally = { seconds: 0, requests: 0, rounds: [] };
      const on: CpuTally = { seconds: 0, requests: 0, rounds: [] };
      try {
        await compareInterleaved(
          { name: "metrics and tracing off", load: (seconds) => load(unobserved, seconds, off) },
          { name: "metrics and tracing on", load: (seconds) => load(observed, seconds, on) },
          { rounds: ROUNDS, seconds: SECONDS, connections: CONNECTIONS, poolSize: POOL_SIZE, floor: 90 },
        );
      } finally {
        clearInterval(scraper);
      }
      // CPU per request hardly moves with what else runs on the machine; its ratio is the
      // throughput share a CPU-bound server would reach.
      const perRequest = (tally: CpuTally) => (tally.seconds * 1000) / tally.requests;
      console.log(
        `server CPU per request: off ${perRequest(off).toFixed(3)} ms, on ${perRequest(on).toFixed(3)} ms: ` +
          `on / off when CPU-bound ${((perRequest(off) / perRequest(on)) * 100).toFixed(1)}%`,
      );
      // Under a loaded machine one round's CPU per request swings by tens of percent: the ratio
      // within each round (its two loads run back to back) and their median drift less.
      const ratios = on.rounds.map((ms, i) => ms / off.rounds[i]!);
      for (const [i, ratio] of ratios.entries())
        console.log(
          `  round ${i + 1}: CPU per request off ${off.rounds[i]!.toFixed(3)} ms, on ${on.rounds[i]!.toFixed(3)} ms, on / off ${ratio.toFixed(2)}`,
        );
      console.log(`CPU per request on / off, median of the rounds: ${percentile(ratios, 50).toFixed(2)}`);
      const requests = /http_request_duration_seconds_count\{[^}]*route="\/v1\/checkouts\/:id"[^}]*\} (\d+)/.exec(await scrape())?.[1];
      // Let the last batch of spans leave the server before counting them.
      await new Promise((resolve) => setTimeout(resolve, 6_000));
      console.log(`observed app: ${requests ?? 0} requests counted by /metrics, ${receiver.spans()} spans received over OTLP`);
    });
  });
  console.log(
    `load average at end: ${loadavg()
      .map((n) => n.toFixed(1))
      .join(" ")}`,
  );
  receiver.close();
}

if (process.argv.includes("--serve")) await serve();
else await main();
