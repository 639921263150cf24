import { run, type Runner, type TaskList } from "graphile-worker";
import type pg from "pg";
import type { Logger } from "pino";

export interface WorkerOptions {
  pool: pg.Pool;
  tasks: TaskList;
  concurrency: number;
  logger: Logger;
}

/** Starts graphile-worker on the application's pool; signals are handled by the server, not here. */
export async function startWorker(options: WorkerOptions): Promise<Runner> {
  const { Logger: WorkerLogger } = await import("graphile-worker");
  const logger = new WorkerLogger(() => (level, message, meta) => {
    const method = level === "error" ? "error" : level === "warning" ? "warn" : "debug";
    options.logger[method]({ worker: meta }, message);
  });
  return run({
    pgPool: options.pool,
    taskList: options.tasks,
    concurrency: options.concurrency,
    noHandleSignals: true,
    pollInterval: 1000,
    logger,
  });
}
