import type { Executor } from "../../db/database.ts";
import type { ProcessorEventRow, ProcessorEventSource } from "./processor-events.table.ts";

/**
 * Stores an event once by its id: the new row's id, or undefined when the event was stored already
 * (a redelivery, or a duplicate racing this one: the unique key lets one of them in).
 */
export const insertProcessorEvent = async (
  db: Executor,
  values: { source: ProcessorEventSource; externalId: string; type: string; payload: string; receivedAt: Date },
): Promise<string | undefined> =>
  (
    await db
      .insertInto("processor_events")
      .values({
        source: values.source,
        external_id: values.externalId,
        type: values.type,
        payload: values.payload,
        received_at: values.receivedAt,
        handled_at: null,
      })
      .onConflict((oc) => oc.columns(["source", "external_id"]).doNothing())
      .returning("id")
      .executeTakeFirst()
  )?.id;

/** The event, locked: one job handles it at a time. */
export const findProcessorEventForUpdate = (db: Executor, id: string): Promise<ProcessorEventRow | undefined> =>
  db.selectFrom("processor_events").selectAll().where("id", "=", id).forUpdate().executeTakeFirst();

export const markProcessorEventHandled = async (db: Executor, id: string, now: Date): Promise<void> => {
  await db.updateTable("processor_events").set({ handled_at: now }).where("id", "=", id).execute();
};

/** Deletes the events handled before `before`: a redelivery that old is past Stripe's retries (three days). */
export const pruneHandledProcessorEvents = async (db: Executor, before: Date): Promise<number> =>
  Number((await db.deleteFrom("processor_events").where("handled_at", "<", before).executeTakeFirst()).numDeletedRows);
