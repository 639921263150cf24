import { EventEmitter } from "node:events";
import { run, type Runner, type TaskList, type WorkerEvents } from "graphile-worker";
import type pg from "pg";
import type { Logger } from "pino";
import { recoverAbandonedJobs, takeWorkerLease } from "./worker-leases.ts";

export interface WorkerOptions {
  pool: pg.Pool;
  tasks: TaskList;
  concurrency: number;
  logger: Logger;
  /** Recurring tasks, in graphile-worker's crontab syntax. */
  crontab?: string;
}

/** How often a running process looks for jobs that a crashed sibling process left locked. */
const RECOVERY_INTERVAL_MS = 60_000;

/**
 * Starts graphile-worker on the application's pool; signals are handled by the server, not here.
 * Jobs locked by a process that died are released first (see worker-leases.ts), so a restart
 * resumes them at once.
 */
/** graphile-worker's levels as pino methods; info and debug chatter goes to debug. */
const WORKER_LOG_METHODS: Partial<Record<string, "error" | "warn">> = { error: "error", warning: "warn" };

export async function startWorker(options: WorkerOptions): Promise<Runner> {
  const { Logger: WorkerLogger } = await import("graphile-worker");
  const logger = new WorkerLogger(() => (level, message, meta) => {
    const method = WORKER_LOG_METHODS[level] ?? "debug";
    options.logger[method]({ worker: meta }, message);
  });
  const lease = await takeWorkerLease(options.pool);
  const recover = async () => {
    const released = await recoverAbandonedJobs(options.pool);
    if (released > 0) options.logger.warn({ workers: released }, "released jobs of workers whose process is gone");
  };
  await recover();
  const events = new EventEmitter() as WorkerEvents;
  // Jobs are locked under the pool's id or a worker's, depending on graphile-worker's batching.
  const record = (id: string) =>
    lease.record(id).catch((error: unknown) => options.logger.error({ err: error }, "could not record a worker lease"));
  events.on("pool:create", ({ workerPool }) => void record(workerPool.id));
  events.on("worker:create", ({ worker }) => void record(worker.workerId));
  const runner = await run({
    pgPool: options.pool,
    taskList: options.tasks,
    ...(options.crontab ? { crontab: options.crontab } : {}),
    concurrency: options.concurrency,
    noHandleSignals: true,
    pollInterval: 1000,
    logger,
    events,
  });
  const timer = setInterval(
    () => void recover().catch((error: unknown) => options.logger.error({ err: error }, "job recovery failed")),
    RECOVERY_INTERVAL_MS,
  );
  timer.unref();
  return {
    ...runner,
    stop: async (reason) => {
      clearInterval(timer);
      await runner.stop(reason);
      await lease.release();
    },
  };
}
