import type { Task } from "graphile-worker";
import { TaskName } from "../../jobs/task-names.ts";
import type { WebhookDeliveryService } from "./webhook-delivery.service.ts";

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null;
const text = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined);

/** The webhook background tasks: fan-out of recorded events, and per-endpoint delivery. */
export function webhookTasks(delivery: WebhookDeliveryService): Record<string, Task> {
  return {
    [TaskName.webhookFanout]: async (payload, helpers) => {
      const eventId = isRecord(payload) ? text(payload.eventId) : undefined;
      if (eventId) await delivery.fanOutEvent(eventId, helpers.job.attempts);
    },
    [TaskName.webhookDeliver]: async (payload, helpers) => {
      const endpointId = isRecord(payload) ? text(payload.endpointId) : undefined;
      if (endpointId && (await delivery.deliverEndpoint(endpointId))) {
        helpers.logger.warn(
          `webhook endpoint ${endpointId} disabled: its deliveries kept failing (its pending events wait for it to be enabled again)`,
        );
      }
    },
  };
}
