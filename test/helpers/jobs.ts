import { sql } from "kysely";
import type { Executor } from "../../src/db/database.ts";

/** A job waiting in graphile-worker's queue, as a test inspects it; `now` is the database's clock at the read. */
export interface QueuedJob<Payload = unknown> {
  id: string;
  task: string;
  key: string | null;
  payload: Payload;
  run_at: Date;
  locked_at: Date | null;
  /** How often the job was re-enqueued under its key. */
  revision: number;
  max_attempts: number;
  /** Runs tried so far, and the error of the last one that failed (graphile-worker keeps it for the retry). */
  attempts: number;
  last_error: string | null;
  now: Date;
}

/**
 * The queued jobs of a task or under a key, oldest first, their payloads taken to be `Payload`. Read
 * from graphile-worker's private tables, which only tests look into: the application goes through
 * its functions.
 */
export async function queuedJobs<Payload = unknown>(db: Executor, by: { task: string } | { key: string }): Promise<QueuedJob<Payload>[]> {
  const where = "task" in by ? sql`t.identifier = ${by.task}` : sql`j.key = ${by.key}`;
  const { rows } = await sql<QueuedJob<Payload>>`SELECT j.id::text AS id, t.identifier AS task, j.key, j.payload, j.run_at, j.locked_at,
      j.revision, j.max_attempts, j.attempts, j.last_error, now() AS now
    FROM graphile_worker._private_jobs j JOIN graphile_worker._private_tasks t ON t.id = j.task_id
    WHERE ${where} ORDER BY j.id`.execute(db);
  return rows;
}

/** Takes a job out of the queue, as the worker does once it has run it. */
export async function removeQueuedJob(db: Executor, id: string): Promise<void> {
  await sql`DELETE FROM graphile_worker._private_jobs WHERE id = ${id}::bigint`.execute(db);
}
