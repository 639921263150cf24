import { sql } from "kysely";
import type { Db } from "../db/database.ts";

export interface JobQueueRow {
  task: string;
  queued: number;
  running: number;
  /** Seconds since the oldest queued job became due; 0 when none is waiting. */
  oldest_due_age_seconds: number;
}

/**
 * The job queue by task, read from graphile-worker's own tables (jobs of every process on this
 * database, not only this one's). Finished jobs are deleted by the worker, so the table stays small.
 */
export async function jobQueueByTask(db: Db): Promise<JobQueueRow[]> {
  const { rows } = await sql<JobQueueRow>`
    SELECT t.identifier AS task,
      (count(*) FILTER (WHERE j.locked_at IS NULL))::int AS queued,
      (count(*) FILTER (WHERE j.locked_at IS NOT NULL))::int AS running,
      coalesce(extract(epoch FROM now() - min(j.run_at) FILTER (WHERE j.locked_at IS NULL AND j.run_at <= now())), 0)::float8
        AS oldest_due_age_seconds
    FROM graphile_worker._private_jobs j
    JOIN graphile_worker._private_tasks t ON t.id = j.task_id
    GROUP BY t.identifier`.execute(db);
  return rows;
}

/** Emails waiting to be sent and those given up on (the partial index on unsent rows answers it). */
export async function unsentEmailsByStatus(db: Db): Promise<{ status: string; count: number }[]> {
  const { rows } = await sql<{ status: string; count: number }>`
    SELECT status, count(*)::int AS count FROM emails WHERE status IN ('pending', 'failed') GROUP BY status`.execute(db);
  return rows;
}

/**
 * How long the oldest event not yet in its meters' aggregates has waited since its ingest (0 when
 * the `meters:aggregate` job has caught up): one probe of `events (organization_id, ingested_at)`
 * per meter, as the job's own search for work (meter-aggregates.repository.ts).
 */
export async function meterAggregationLagSeconds(db: Db): Promise<number> {
  const { rows } = await sql<{ lag: number }>`
    SELECT greatest(coalesce(max(extract(epoch FROM now() - waiting.ingested_at)), 0), 0)::float8 AS lag
    FROM meters m CROSS JOIN LATERAL (
      SELECT e.ingested_at FROM events e WHERE e.organization_id = m.organization_id AND e.ingested_at >= m.aggregated_until
      ORDER BY e.ingested_at LIMIT 1) waiting`.execute(db);
  return rows[0]?.lag ?? 0;
}
