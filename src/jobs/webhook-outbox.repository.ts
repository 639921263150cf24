import { sql } from "kysely";
import type { Executor } from "../db/database.ts";

/**
 * Stores an outbox row (the event's payload as its subscribers receive it) and adds the job that
 * fans it out, in one statement: one round trip for what every change that emits an event pays
 * (a checkout's completion records five). Answers the event's id.
 */
export async function insertWebhookEventWithFanout(
  db: Executor,
  event: { organizationId: string; type: string; payload: string; now: Date },
  fanoutTask: string,
): Promise<string> {
  const { rows } = await sql<{ id: string }>`
    WITH event AS (
      INSERT INTO webhook_events (organization_id, type, payload, created_at)
      VALUES (${event.organizationId}, ${event.type}, ${event.payload}, ${event.now})
      RETURNING id
    )
    SELECT id, graphile_worker.add_job(identifier => ${fanoutTask}, payload => json_build_object('eventId', id)) FROM event`.execute(db);
  return rows[0]!.id;
}
