import { EventEmitter } from "node:events";
import { setTimeout as sleep } from "node:timers/promises";
import { run, type Runner, type TaskList, type WorkerEvents } from "graphile-worker";
import type pg from "pg";
import type { Logger } from "pino";
import { tracedTasks } from "./job-trace.ts";
import { recoverAbandonedJobs, takeWorkerLease } from "./worker-leases.ts";

export interface WorkerOptions {
  pool: pg.Pool;
  tasks: TaskList;
  concurrency: number;
  logger: Logger;
  /** Recurring tasks, in graphile-worker's crontab syntax. */
  crontab?: string;
}

/** The job worker of this process. */
export interface JobWorker {
  stop(): Promise<void>;
}

/** How often a running process looks for jobs that a dead process left locked. */
const RECOVERY_INTERVAL_MS = 3_000;
/** Wait between attempts to start graphile-worker again (the database may still be down). */
const RESTART_DELAY_MS = 1_000;
/**
 * Failed job fetches in a row (one a second, the poll interval) after which graphile-worker is
 * started afresh. Its first fetch looks up the task ids and keeps that lookup's promise: when the
 * database goes away during it, every later fetch fails with the same cached error, forever.
 */
const FETCH_FAILURES_BEFORE_RESTART = 5;

/** graphile-worker's levels as pino methods; info and debug chatter goes to debug. */
const WORKER_LOG_METHODS: Partial<Record<string, "error" | "warn">> = { error: "error", warning: "warn" };

/**
 * Starts graphile-worker on the application's pool; signals are handled by the server, not here.
 *
 * - Jobs locked by a process that died are released at start and every few seconds after (see
 *   worker-leases.ts), so they run again within seconds rather than after four hours.
 * - When a job's outcome cannot be recorded (the database went away as it finished),
 *   graphile-worker stops its whole pool. This process starts it again as soon as the database
 *   answers, first unlocking the jobs its finished workers still held: such a job runs again,
 *   after the first run ended, never beside it (tasks are idempotent).
 * - When fetching jobs keeps failing (FETCH_FAILURES_BEFORE_RESTART), the pool is stopped and
 *   started the same way: a database outage costs a restart once it is over, and a fetch that a
 *   cached error had broken for good works again.
 */
export async function startWorker(options: WorkerOptions): Promise<JobWorker> {
  const { Logger: WorkerLogger } = await import("graphile-worker");
  const logger = new WorkerLogger(() => (level, message, meta) => {
    const method = WORKER_LOG_METHODS[level] ?? "debug";
    options.logger[method]({ worker: meta }, message);
  });
  const lease = await takeWorkerLease(options.pool, {
    onRenewError: (error) => options.logger.debug({ err: error }, "worker lease renewal failed; retrying"),
    onTakenOver: (workerIds) =>
      options.logger.error(
        { workerIds },
        "this process's workers were presumed dead while cut off from the database; their jobs may have run again",
      ),
  });
  const recover = async () => {
    const released = await recoverAbandonedJobs(options.pool);
    if (released > 0) options.logger.warn({ workers: released }, "released jobs of workers whose process is gone");
  };
  await recover();

  // Ids of the current graphile-worker run: jobs are locked under the pool's id or a worker's.
  let runIds: string[] = [];
  const record = (id: string) => {
    runIds.push(id);
    lease.record(id).catch((error: unknown) => options.logger.error({ err: error }, "could not record a worker lease"));
  };
  const traced = tracedTasks(options.tasks);
  const events = new EventEmitter() as WorkerEvents;
  events.on("pool:create", ({ workerPool }) => record(workerPool.id));
  events.on("worker:create", ({ worker }) => record(worker.workerId));
  let runner: Runner | undefined;
  let fetchFailures = 0;
  let stopReason: Error | null = null;
  events.on("worker:getJob:error", ({ error }) => {
    fetchFailures += 1;
    if (fetchFailures !== FETCH_FAILURES_BEFORE_RESTART) return;
    stopReason = new Error(
      `${fetchFailures} job fetches failed in a row, the last with: ${error instanceof Error ? error.message : String(error)}`,
    );
    runner?.stop().catch((stopError: unknown) => options.logger.debug({ err: stopError }, "job worker already stopped"));
  });
  const fetched = () => {
    fetchFailures = 0;
  };
  events.on("worker:getJob:empty", fetched);
  events.on("job:start", fetched);
  const start = () =>
    run({
      pgPool: options.pool,
      taskList: traced,
      ...(options.crontab ? { crontab: options.crontab } : {}),
      concurrency: options.concurrency,
      noHandleSignals: true,
      pollInterval: 1000,
      // Batched (without delay), a failure to record a job's outcome stops graphile-worker's pool
      // (restarted below); unbatched, it is an unhandled rejection and the job stays locked.
      preset: { worker: { completeJobBatchDelay: 0, failJobBatchDelay: 0 } },
      logger,
      events,
    });

  let stopping = false;
  runner = await start();
  const restart = async (reason: unknown) => {
    if (stopping) return;
    options.logger.error({ err: reason }, "the job worker stopped unexpectedly; starting it again");
    const finished = runIds;
    fetchFailures = 0;
    stopReason = null;
    while (!stopping) {
      try {
        // Every worker of the finished run is done: a job one still holds (its outcome never
        // reached the database) runs again now.
        await options.pool.query("SELECT graphile_worker.force_unlock_workers($1::text[])", [finished]);
        await lease.forget(finished);
        runIds = [];
        runner = await start();
        supervise(runner);
        return;
      } catch (error) {
        options.logger.debug({ err: error }, "could not start the job worker yet");
        await sleep(RESTART_DELAY_MS);
      }
    }
  };
  const supervise = (current: Runner) => {
    current.promise.then(
      () => void restart(stopReason ?? new Error("graphile-worker's pool shut down")),
      (error: unknown) => void restart(error),
    );
  };
  supervise(runner);

  const timer = setInterval(
    () => void recover().catch((error: unknown) => options.logger.debug({ err: error }, "job recovery failed; retrying")),
    RECOVERY_INTERVAL_MS,
  );
  timer.unref();
  return {
    stop: async () => {
      stopping = true;
      clearInterval(timer);
      await runner?.stop().catch((error: unknown) => options.logger.debug({ err: error }, "job worker already stopped"));
      await lease.release();
    },
  };
}
