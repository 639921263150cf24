import { sql } from "kysely";
import type { Executor } from "../db/database.ts";
import { withTraceparent } from "./job-trace.ts";

export interface EnqueueOptions {
  /** Replaces a pending job with the same key instead of adding a second one. */
  jobKey?: string;
  /**
   * `replace` (graphile-worker's default) moves a pending job to the new `runAt`;
   * `preserve_run_at` keeps its time, so repeated enqueues fold into one run that still happens on time.
   */
  jobKeyMode?: "replace" | "preserve_run_at";
  /** Jobs sharing a queue name run one at a time, in order. */
  queueName?: string;
  runAt?: Date;
  maxAttempts?: number;
  /** Lower runs first (default 0). */
  priority?: number;
}

/**
 * Adds a job through graphile-worker's SQL API on the given executor, so a job enqueued inside a
 * transaction exists exactly when that transaction commits.
 */
export async function enqueueJob(db: Executor, task: string, payload: unknown, options: EnqueueOptions = {}): Promise<void> {
  await sql`SELECT graphile_worker.add_job(
    identifier => ${task},
    payload => ${JSON.stringify(withTraceparent(payload ?? {}))}::json,
    queue_name => ${options.queueName ?? null},
    run_at => ${options.runAt ?? null},
    max_attempts => ${options.maxAttempts ?? null},
    job_key => ${options.jobKey ?? null},
    job_key_mode => ${options.jobKeyMode ?? null},
    priority => ${options.priority ?? null}
  )`.execute(db);
}

/** Drops a pending job by key (no-op when none is pending), in the caller's transaction. */
export async function removeJob(db: Executor, jobKey: string): Promise<void> {
  await sql`SELECT graphile_worker.remove_job(${jobKey})`.execute(db);
}
