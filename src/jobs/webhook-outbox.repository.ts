import { sql } from "kysely";
import type { Executor } from "../db/database.ts";

/**
 * Stores an outbox row (the event's payload as its subscribers receive it) and adds the job that
 * fans it out, in one statement: one round trip for what every change that emits an event pays
 * (a checkout's completion records five). Answers the event's id.
 */
export async function insertWebhookEventWithFanout(
  db: Executor,
  event: { organizationId: string; type: string; orderingKey: string; payload: string; now: Date },
  fanout: { task: string; payload: Record<string, string> },
): Promise<string> {
  // The job's payload is the given one with the new event's id added by the statement itself.
  const { rows } = await sql<{ id: string }>`
    WITH event AS (
      INSERT INTO webhook_events (organization_id, type, ordering_key, payload, created_at)
      VALUES (${event.organizationId}, ${event.type}, ${event.orderingKey}, ${event.payload}, ${event.now})
      RETURNING id
    )
    SELECT id, graphile_worker.add_job(
      identifier => ${fanout.task},
      payload => (${JSON.stringify(fanout.payload)}::jsonb || jsonb_build_object('eventId', id))::json
    ) FROM event`.execute(db);
  return rows[0]!.id;
}
