import type { Task } from "graphile-worker";
import type { Deps } from "../../context.ts";
import { realTime } from "../../values/clock.ts";
import { pruneHandledProcessorEvents } from "./processor-events.repository.ts";
import type { ProcessorEventInbox } from "./processor-events.service.ts";

const isPayload = (value: unknown): value is { eventId: string } =>
  typeof value === "object" && value !== null && typeof (value as { eventId?: unknown }).eventId === "string";

/** Handles one stored event; a failure (an event ahead of its row) is retried by the worker. */
export function handleProcessorEventTask(inbox: ProcessorEventInbox): Task {
  return async (payload) => {
    if (isPayload(payload)) await inbox.handle(payload.eventId);
  };
}

/** How long a handled event is kept: well past Stripe's three days of redeliveries, so a late one is still recognised. */
const RETENTION_MS = 30 * 24 * 60 * 60 * 1000;

/** Deletes the events handled more than 30 days ago (daily; whatever the processor now, rows of an earlier one age out too). */
export function pruneProcessorEventsTask(deps: Deps): Task {
  return async () => {
    await pruneHandledProcessorEvents(deps.db, new Date(realTime(deps.now).getTime() - RETENTION_MS));
  };
}
