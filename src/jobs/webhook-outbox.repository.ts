import type { Executor } from "../db/database.ts";

/** Stores an outbox row (the event's payload as its subscribers receive it); answers its id. */
export async function insertWebhookEvent(
  db: Executor,
  event: { organizationId: string; type: string; orderingKey: string; payload: string; now: Date },
): Promise<string> {
  const row = await db
    .insertInto("webhook_events")
    .values({
      organization_id: event.organizationId,
      type: event.type,
      ordering_key: event.orderingKey,
      payload: event.payload,
      created_at: event.now,
    })
    .returning("id")
    .executeTakeFirstOrThrow();
  return row.id;
}
