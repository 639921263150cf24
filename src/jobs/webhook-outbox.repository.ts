import { sql } from "kysely";
import type { Executor } from "../db/database.ts";

/** An outbox row to store: the event's payload as its subscribers receive it. */
export interface NewWebhookEvent {
  organizationId: string;
  type: string;
  orderingKey: string;
  payload: string;
  now: Date;
}

/**
 * Stores outbox rows, in the order given, and adds the job that fans each out, in one statement:
 * one round trip for what every change that emits events pays (a checkout's completion records
 * five). Answers the events' ids, in the same order.
 */
export async function insertWebhookEventsWithFanout(
  db: Executor,
  events: readonly NewWebhookEvent[],
  fanout: { task: string; payload: Record<string, string> },
): Promise<string[]> {
  if (events.length === 0) return [];
  // Rows of one VALUES list are inserted in their order, so `position` keeps the order of recording.
  // The job's payload is the given one with the new event's id added by the statement itself.
  const { rows } = await sql<{ id: string }>`
    WITH event AS (
      INSERT INTO webhook_events (organization_id, type, ordering_key, payload, created_at)
      VALUES ${sql.join(events.map((event) => sql`(${event.organizationId}, ${event.type}, ${event.orderingKey}, ${event.payload}, ${event.now})`))}
      RETURNING id, position
    )
    SELECT id, graphile_worker.add_job(
      identifier => ${fanout.task},
      payload => (${JSON.stringify(fanout.payload)}::jsonb || jsonb_build_object('eventId', id))::json
    ) FROM event ORDER BY position`.execute(db);
  return rows.map((row) => row.id);
}
