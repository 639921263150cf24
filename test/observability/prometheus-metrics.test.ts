import { randomUUID } from "node:crypto";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { FastifyInstance } from "fastify";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../../src/app.ts";
import { startMetricsServer } from "../../src/observability/metrics-endpoint.ts";
import { createPrometheusMetrics, type PrometheusMetrics } from "../../src/observability/prometheus-metrics.ts";
import { createTestContext, testConfig, type TestContext } from "../helpers/context.ts";
import { createOrganization, createOrganizationToken } from "../helpers/factories.ts";
import { scrapeMetrics, seriesCount, valueOf } from "./scrape.ts";

const METRICS_TOKEN = "scrape-me-0123456789abcdef";

let ctx: TestContext;
let metrics: PrometheusMetrics;
/** The app as `npm start` builds it with METRICS_TOKEN set. */
let app: FastifyInstance;

beforeAll(async () => {
  ctx = await createTestContext();
  metrics = createPrometheusMetrics(ctx.deps.db, ctx.database.pool);
  app = await buildApp({ ...ctx.deps, config: testConfig({ METRICS_TOKEN }) }, { logger: false, services: ctx.services, metrics });
});
afterAll(async () => {
  await app.close();
  await ctx.close();
});

const scrape = () => scrapeMetrics(app, METRICS_TOKEN);

describe("/metrics on the API port", () => {
  it.each([
    ["no credential", {}],
    ["another token", { authorization: "Bearer scrape-me-0123456789abcdeX" }],
    ["the token without its scheme", { authorization: METRICS_TOKEN }],
  ])("refuses %s with 401", async (_case, headers) => {
    const response = await app.inject({ method: "GET", url: "/metrics", headers });
    expect(response.statusCode).toBe(401);
    expect(response.json()).toEqual({ error: "Unauthorized", detail: "The metrics need the METRICS_TOKEN bearer token." });
  });

  it("counts requests by route template, method and status, with the pool and the process's own figures", async () => {
    const org = await createOrganization(ctx.deps);
    const token = await createOrganizationToken(ctx.deps, org.id, ["orders:read"]);
    for (let i = 0; i < 3; i += 1) await app.inject({ method: "GET", url: "/v1/orders/", headers: { authorization: `Bearer ${token}` } });
    await app.inject({ method: "GET", url: `/v1/orders/${randomUUID()}`, headers: { authorization: `Bearer ${token}` } });
    await app.inject({ method: "GET", url: "/no/such/path" });

    const text = await scrape();
    expect(valueOf(text, 'http_request_duration_seconds_count{method="GET",route="/v1/orders/",status_code="200"}')).toBe(3);
    expect(valueOf(text, 'http_request_duration_seconds_count{method="GET",route="/v1/orders/:id",status_code="404"}')).toBe(1);
    expect(valueOf(text, 'http_request_duration_seconds_count{method="GET",route="(unmatched)",status_code="404"}')).toBe(1);
    expect(valueOf(text, 'db_pool_connections{state="total"}')).toBeGreaterThan(0);
    expect(valueOf(text, 'db_pool_connections{state="waiting"}')).toBe(0);
    expect(text).toMatch(/^nodejs_eventloop_lag_seconds \d/m);
    expect(text).toMatch(/^nodejs_heap_size_used_bytes \d/m);
  });

  // The webhook figures: test/observability/webhook-metrics.test.ts.
  it("reads the job queue and the unsent emails from the database", async () => {
    await sql`SELECT graphile_worker.add_job('metrics.test', '{}'::json, run_at => now() - interval '90 seconds')`.execute(ctx.deps.db);

    const text = await scrape();
    expect(valueOf(text, 'jobs_queued{task="metrics.test"}')).toBe(1);
    expect(valueOf(text, 'jobs_running{task="metrics.test"}')).toBe(0);
    expect(valueOf(text, 'jobs_oldest_due_age_seconds{task="metrics.test"}')).toBeGreaterThanOrEqual(89);
    expect(valueOf(text, 'emails_unsent{status="pending"}')).toBe(0);
    expect(valueOf(text, 'emails_unsent{status="failed"}')).toBe(0);

    await sql`DELETE FROM graphile_worker._private_jobs`.execute(ctx.deps.db);
    const after = await scrape();
    expect(valueOf(after, 'jobs_queued{task="metrics.test"}')).toBeUndefined();
  });

  it("keeps the number of series flat after 10,000 requests to distinct ids and paths", async () => {
    const burst = async (count: number) => {
      for (let i = 0; i < count; i += 1) {
        await app.inject({ method: "GET", url: `/v1/orders/${randomUUID()}` });
        await app.inject({ method: "GET", url: `/unknown/${randomUUID()}` });
      }
    };
    // The garbage collector's histogram gains a `kind` (one of four) the first time a collection of
    // that kind runs, which a long burst may cause: bounded by the runtime, so left out of the count.
    const seriesOfTheApp = (text: string) =>
      seriesCount(
        text
          .split("\n")
          .filter((line) => !line.startsWith("nodejs_gc_duration_seconds"))
          .join("\n"),
      );
    await burst(10);
    const before = seriesOfTheApp(await scrape());
    await burst(5_000);
    const after = await scrape();
    expect(seriesOfTheApp(after)).toBe(before);
    expect(
      valueOf(after, 'http_request_duration_seconds_count{method="GET",route="(unmatched)",status_code="404"}'),
    ).toBeGreaterThanOrEqual(5_010);
  }, 120_000);
});

describe("/metrics on a port of its own (METRICS_PORT)", () => {
  let server: Server;
  beforeAll(async () => {
    server = await startMetricsServer(metrics, "127.0.0.1", 0);
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it("answers the scrape without a credential, and nothing else", async () => {
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const scraped = await fetch(`${base}/metrics`);
    expect(scraped.status).toBe(200);
    expect(await scraped.text()).toContain("# TYPE http_request_duration_seconds histogram");
    expect((await fetch(`${base}/v1/orders/`)).status).toBe(404);
  });

  it("is not served on the API port of an app configured for the port", async () => {
    const apiOnly = await buildApp(
      { ...ctx.deps, config: testConfig({ METRICS_PORT: "0" }) },
      { logger: false, services: ctx.services, metrics },
    );
    try {
      expect((await apiOnly.inject({ method: "GET", url: "/metrics" })).statusCode).toBe(404);
    } finally {
      await apiOnly.close();
    }
  });
});
