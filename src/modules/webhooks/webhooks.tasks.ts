import type { Task } from "graphile-worker";
import type { Deps } from "../../context.ts";
import { createWebhookDeliveryService, WEBHOOK_DELIVER_TASK, type DeliveryOptions } from "./webhook-delivery.service.ts";
import { WEBHOOK_FANOUT_TASK } from "./webhook-events.outbox.ts";

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null;
const text = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined);

/** The webhook background tasks: fan-out of recorded events, and per-endpoint delivery. */
export function webhookTasks(deps: Deps, options: DeliveryOptions = {}): Record<string, Task> {
  const delivery = createWebhookDeliveryService(deps, options);
  return {
    [WEBHOOK_FANOUT_TASK]: async (payload, helpers) => {
      const eventId = isRecord(payload) ? text(payload.eventId) : undefined;
      if (eventId) await delivery.fanOutEvent(eventId, helpers.job.attempts);
    },
    [WEBHOOK_DELIVER_TASK]: async (payload) => {
      const endpointId = isRecord(payload) ? text(payload.endpointId) : undefined;
      if (endpointId) await delivery.deliverEndpoint(endpointId);
    },
  };
}
