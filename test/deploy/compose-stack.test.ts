import { execFile } from "node:child_process";
import { readFile } from "node:fs/promises";
import path from "node:path";
import type { FastifyInstance } from "fastify";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { buildApp } from "../../src/app.ts";
import { createPrometheusMetrics } from "../../src/observability/prometheus-metrics.ts";
import { createTestContext, testConfig, type TestContext } from "../helpers/context.ts";
import { projectRoot } from "../helpers/process.ts";
import { declaredMetricNames, scrapeMetrics } from "../observability/scrape.ts";

/**
 * The compose stack as a user starts it. No Docker engine runs on these machines, so this checks
 * what can fail without one: images that float (`latest`, no tag) and stop resolving one day,
 * services started before what they need is ready, and the file as Docker Compose reads it.
 */
interface ComposeService {
  image?: string;
  profiles?: string[];
  volumes?: string[];
  environment?: Record<string, string>;
  build?: unknown;
  healthcheck?: unknown;
  depends_on?: string[] | Record<string, { condition?: string }>;
}

interface PrometheusConfig {
  rule_files: string[];
  scrape_configs: { static_configs: { targets: string[] }[] }[];
}

const composeFile = path.join(projectRoot, "docker-compose.yml");
const readCompose = async () => parse(await readFile(composeFile, "utf8"), { merge: true }) as { services: Record<string, ComposeService> };
/**
 * A tag naming one release: digits with dots (`17.6`, `24.11.1`, Prometheus's `v3.5.0`) or a dated
 * `RELEASE.` tag, with an optional variant.
 */
const PINNED_TAG = /:(v?\d+\.\d+(\.\d+)?|RELEASE\.\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}Z)(-[a-z0-9.]+)*$/;

describe("docker-compose.yml", () => {
  it("pins every pulled image, and the Dockerfile's base image, to one release", async () => {
    const { services } = await readCompose();
    const pulled = Object.entries(services).filter(([, service]) => service.build === undefined);
    expect(pulled.map(([name]) => name).sort()).toEqual(["grafana", "postgres", "prometheus", "storage", "storage-bucket"]);
    for (const [name, service] of pulled) expect(service.image, name).toMatch(PINNED_TAG);
    const base = (await readFile(path.join(projectRoot, "Dockerfile"), "utf8")).match(/^FROM (\S+)/m)?.[1];
    expect(base).toMatch(PINNED_TAG);
  });

  it("starts each service after what it depends on is healthy, or has finished for the one-shot steps", async () => {
    const { services } = await readCompose();
    const waits: string[] = [];
    for (const [name, service] of Object.entries(services)) {
      const dependsOn = service.depends_on ?? {};
      // A bare list waits for nothing but the container's start.
      expect(Array.isArray(dependsOn), `${name} lists depends_on without conditions`).toBe(false);
      for (const [dependency, { condition }] of Object.entries(dependsOn as Record<string, { condition?: string }>)) {
        waits.push(`${name} → ${dependency}: ${condition}`);
        if (condition === "service_healthy") expect(services[dependency]?.healthcheck, `${dependency} has no healthcheck`).toBeDefined();
        else expect(condition, `${name} → ${dependency}`).toBe("service_completed_successfully");
      }
    }
    // Migrations run once, before the API and the worker; the API serves with the worker apart.
    expect(waits).toEqual(
      expect.arrayContaining([
        "migrate → postgres: service_healthy",
        "api → migrate: service_completed_successfully",
        "worker → migrate: service_completed_successfully",
      ]),
    );
    expect(services.api?.healthcheck).toBeDefined();
  });

  // Three runs of docker-compose (a Python program: near 10 s each on a loaded two-core machine).
  it("is valid for Docker Compose (docker-compose config)", async ({ skip }) => {
    const run = promisify(execFile);
    const available = await run("docker-compose", ["version"]).then(
      () => true,
      () => false,
    );
    skip(!available, "docker-compose is not installed (Debian's docker-compose package; .ci/run installs it)");
    // Docker Compose v1 lists the services of every profile here, v2 those of no profile only.
    const { stdout } = await run("docker-compose", ["-f", composeFile, "config", "--services"], { cwd: projectRoot });
    expect(stdout.trim().split("\n")).toEqual(
      expect.arrayContaining(["api", "migrate", "postgres", "storage", "storage-bucket", "worker"]),
    );
    const observability = await run("docker-compose", ["-f", composeFile, "--profile", "observability", "config"], { cwd: projectRoot });
    const resolved = parse(observability.stdout) as { services: Record<string, ComposeService> };
    expect(Object.keys(resolved.services).sort()).toEqual([
      "api",
      "grafana",
      "migrate",
      "postgres",
      "prometheus",
      "storage",
      "storage-bucket",
      "worker",
    ]);
  }, 120_000);

  it("starts Prometheus and Grafana only with the observability profile, with the files of deploy/ mounted", async () => {
    const { services } = await readCompose();
    const profiled = Object.entries(services).filter(([, service]) => service.profiles !== undefined);
    expect(profiled.map(([name, service]) => `${name}: ${service.profiles!.join(",")}`).sort()).toEqual([
      "grafana: observability",
      "prometheus: observability",
    ]);
    const mounts = (name: string) => (services[name]?.volumes ?? []).filter((volume) => volume.startsWith("./deploy/"));
    expect(mounts("prometheus")).toEqual(["./deploy/prometheus:/etc/prometheus:ro"]);
    expect(mounts("grafana")).toEqual([
      "./deploy/grafana/provisioning:/etc/grafana/provisioning:ro",
      "./deploy/grafana/dashboards:/etc/grafana/dashboards:ro",
    ]);
    for (const name of ["prometheus", "grafana"]) expect(services[name]?.healthcheck, name).toBeDefined();
    for (const name of ["api", "worker"]) expect(services[name]?.environment?.METRICS_PORT, name).toBe("9464");
    // Prometheus reads its rules where the mount puts them, and scrapes the port the API and the worker serve.
    const prometheus = parse(await readFile(path.join(projectRoot, "deploy/prometheus/prometheus.yml"), "utf8")) as PrometheusConfig;
    expect(prometheus.rule_files).toEqual(["/etc/prometheus/alerts.yml"]);
    expect(prometheus.scrape_configs.flatMap((job) => job.static_configs.flatMap((config) => config.targets))).toEqual([
      "api:9464",
      "worker:9464",
    ]);
  });
});

/**
 * The metric names a PromQL expression reads: its identifiers, once strings, label matchers, ranges
 * and grouping clauses are taken out, that are neither functions (followed by `(`) nor keywords.
 */
function metricNamesIn(expr: string): string[] {
  const bare = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, "")
    .replace(/\{[^}]*\}/g, "")
    .replace(/\[[^\]]*\]/g, "")
    .replace(/\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, "");
  const keywords = new Set(["and", "or", "unless", "bool", "offset", "by", "without", "inf", "nan"]);
  return [...bare.matchAll(/\b[a-zA-Z_:][\w:]*\b(?!\s*\()/g)].map((match) => match[0]).filter((name) => !keywords.has(name.toLowerCase()));
}

/** Every expression of the alert rules and of the dashboard's panels, with where it is. */
async function deployExpressions(): Promise<{ where: string; expr: string }[]> {
  const alerts = parse(await readFile(path.join(projectRoot, "deploy/prometheus/alerts.yml"), "utf8")) as {
    groups: { rules: { alert: string; expr: string }[] }[];
  };
  const dashboard = JSON.parse(await readFile(path.join(projectRoot, "deploy/grafana/dashboards/commerce-api.json"), "utf8")) as {
    panels: { title: string; targets?: { expr: string }[] }[];
  };
  return [
    ...alerts.groups.flatMap((group) => group.rules.map((rule) => ({ where: `alert ${rule.alert}`, expr: rule.expr }))),
    ...dashboard.panels.flatMap((panel) => (panel.targets ?? []).map((target) => ({ where: `panel ${panel.title}`, expr: target.expr }))),
  ];
}

/**
 * The webhook delivery metrics the dashboard and the alerts read, named as the webhook delivery
 * work of issue 35 exposes them (src/observability/webhook-metrics.ts): the check that every name
 * read is exposed fails, naming them, on a server without them.
 */
const WEBHOOK_DELIVERY_METRICS = [
  "webhook_delivery_attempts_total",
  "webhook_events_settled_total",
  "webhook_events_oldest_pending_age_seconds",
  "webhook_endpoint_oldest_pending_age_seconds",
];

describe("deploy/: the alert rules and the dashboard", () => {
  const METRICS_TOKEN = "scrape-me-0123456789abcdef";
  let ctx: TestContext;
  let app: FastifyInstance;
  beforeAll(async () => {
    ctx = await createTestContext();
    const metrics = createPrometheusMetrics(ctx.deps.db, ctx.database.pool);
    app = await buildApp({ ...ctx.deps, config: testConfig({ METRICS_TOKEN }) }, { logger: false, services: ctx.services, metrics });
  });
  afterAll(async () => {
    await app.close();
    await ctx.close();
  });

  /** The series names a running server's /metrics exposes (a histogram's and a summary's parts included). */
  const exposedNames = async () => {
    const declared = declaredMetricNames(await scrapeMetrics(app, METRICS_TOKEN));
    return new Set([...declared].flatMap((name) => [name, `${name}_bucket`, `${name}_sum`, `${name}_count`]));
  };

  it("find every metric name they read in a running server's /metrics", async () => {
    const exposed = await exposedNames();
    const expressions = await deployExpressions();
    expect(expressions.length).toBeGreaterThan(20);
    const unknown = expressions.flatMap(({ where, expr }) =>
      metricNamesIn(expr)
        .filter((name) => !exposed.has(name))
        .map((name) => `${where}: ${name}`),
    );
    expect(unknown).toEqual([]);
  });

  it("read the metrics of every family the issue lists", async () => {
    const read = new Set((await deployExpressions()).flatMap(({ expr }) => metricNamesIn(expr)));
    for (const name of [
      "http_request_duration_seconds_count",
      "http_request_duration_seconds_bucket",
      "db_pool_connections",
      "jobs_queued",
      "jobs_oldest_due_age_seconds",
      ...WEBHOOK_DELIVERY_METRICS,
      "email_sends_total",
      "emails_unsent",
      "subscription_renewals_total",
      "checkout_confirms_total",
      "events_ingested_total",
      "meter_aggregation_lag_seconds",
      "nodejs_eventloop_lag_p99_seconds",
    ])
      expect(read.has(name), name).toBe(true);
  });

  it("reads a metric name out of a PromQL expression, not its functions, labels or keywords", () => {
    expect(
      metricNamesIn('histogram_quantile(0.99, sum by (le, route) (rate(http_request_duration_seconds_bucket{route!="/metrics"}[5m]))) > 2'),
    ).toEqual(["http_request_duration_seconds_bucket"]);
    expect(metricNamesIn("max by (task) (jobs_queued) / on (task) jobs_running > 1e-9 and up")).toEqual([
      "jobs_queued",
      "jobs_running",
      "up",
    ]);
  });
});
