import { sql } from "kysely";
import type { Executor } from "../db/database.ts";
import { addJobsExpression, type JobSpec } from "./job-queue.repository.ts";

/** An outbox row to store: the event's payload as its subscribers receive it. */
export interface NewWebhookEvent {
  organizationId: string;
  type: string;
  orderingKey: string;
  payload: string;
  now: Date;
}

/**
 * Stores outbox rows, in the order given, and adds the job that fans each out, with `jobs` (other
 * jobs of the same change), in one statement that calls graphile-worker's `add_jobs` once per job
 * key mode: one round trip and one notification to the workers for what every change that emits
 * events pays (a checkout's completion records five). Answers the events' ids, in the same order.
 */
export async function insertWebhookEventsWithFanout(
  db: Executor,
  events: readonly NewWebhookEvent[],
  fanout: { task: string; payload: Record<string, string> },
  jobs: readonly JobSpec[] = [],
): Promise<string[]> {
  if (events.length === 0) return [];
  // Rows of one VALUES list are inserted in their order, so `position` keeps the order of recording.
  // Each fan-out's payload is the given one with its event's new id added by the statement itself.
  const fanouts = sql`ARRAY(
    SELECT ROW(${fanout.task}::text, (${JSON.stringify(fanout.payload)}::jsonb || jsonb_build_object('eventId', id))::json,
               NULL, NULL, NULL, NULL, NULL, NULL)::graphile_worker.job_spec
    FROM event ORDER BY position)`;
  // `added` is selected so that its statement runs: a WITH query without a data change runs only when read.
  const { rows } = await sql<{ id: string }>`
    WITH event AS (
      INSERT INTO webhook_events (organization_id, type, ordering_key, payload, created_at)
      VALUES ${sql.join(events.map((event) => sql`(${event.organizationId}, ${event.type}, ${event.orderingKey}, ${event.payload}, ${event.now})`))}
      RETURNING id, position
    ), job AS (SELECT ${addJobsExpression(jobs, fanouts)} AS added)
    SELECT event.id, job.added FROM event, job ORDER BY event.position`.execute(db);
  return rows.map((row) => row.id);
}
