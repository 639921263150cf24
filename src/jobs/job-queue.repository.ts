import { sql, type RawBuilder } from "kysely";
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

/** A job to add: its task, its payload (the current trace context is added) and how it runs. */
export interface JobSpec {
  task: string;
  payload: unknown;
  options?: EnqueueOptions;
}

/** A job as graphile-worker's `job_spec` row. */
function specRow({ task, payload, options = {} }: JobSpec): RawBuilder<unknown> {
  return sql`ROW(
    ${task}::text,
    ${JSON.stringify(withTraceparent(payload ?? {}))}::json,
    ${options.queueName ?? null}::text,
    ${options.runAt ?? null}::timestamptz,
    ${options.maxAttempts ?? null}::integer,
    ${options.jobKey ?? null}::text,
    ${options.priority ?? null}::integer,
    NULL::text[]
  )::graphile_worker.job_spec`;
}

/**
 * The SQL expression that adds `jobs` through graphile-worker's `add_jobs` and answers how many it
 * added: one call per job key mode (the mode is a call's, not a job's), so one notification to the
 * workers per mode instead of one per job (NOTIFY costs each committer a turn at a global lock).
 * `computed` is a `job_spec[]` expression of keyless jobs that the enclosing statement makes (a
 * webhook event's fan-out, which carries the event's new id); they join the first call. Two jobs of
 * one call must not share a key (`add_jobs` inserts them with one `ON CONFLICT`).
 */
export function addJobsExpression(jobs: readonly JobSpec[], computed?: RawBuilder<unknown>): RawBuilder<number> {
  const preserving = (job: JobSpec) => job.options?.jobKey !== undefined && job.options.jobKeyMode === "preserve_run_at";
  const groups = [false, true]
    .map((preserve) => ({ preserve, rows: jobs.filter((job) => preserving(job) === preserve).map(specRow) }))
    .filter((group) => group.rows.length > 0);
  if (groups.length === 0) groups.push({ preserve: false, rows: [] });
  const calls = groups.map(({ preserve, rows }, i) => {
    const listed = rows.length > 0 ? sql`ARRAY[${sql.join(rows)}]` : sql`ARRAY[]::graphile_worker.job_spec[]`;
    const specs = i === 0 && computed ? sql`${computed} || ${listed}` : listed;
    return sql`(SELECT count(*) FROM graphile_worker.add_jobs(${specs}, ${preserve}))`;
  });
  return sql<number>`(${sql.join(calls, sql` + `)})`;
}

/**
 * Adds jobs through graphile-worker's SQL API on the given executor, in one statement, so jobs
 * enqueued inside a transaction exist exactly when that transaction commits.
 */
export async function enqueueJobs(db: Executor, jobs: readonly JobSpec[]): Promise<void> {
  if (jobs.length === 0) return;
  await sql`SELECT ${addJobsExpression(jobs)}`.execute(db);
}

/** Adds one job (see enqueueJobs). */
export const enqueueJob = (db: Executor, task: string, payload: unknown, options: EnqueueOptions = {}): Promise<void> =>
  enqueueJobs(db, [{ task, payload, options }]);

/** Drops a pending job by key (no-op when none is pending), in the caller's transaction. */
export async function removeJob(db: Executor, jobKey: string): Promise<void> {
  await sql`SELECT graphile_worker.remove_job(${jobKey})`.execute(db);
}
