import { toIso, toIsoOrNull } from "../../schema/primitives.ts";
import type { WebhookEventRow } from "./webhook-events.table.ts";
import type { WebhookDelivery, WebhookEndpoint, WebhookEvent, WebhookEventType, WebhookFormat } from "./webhooks.schemas.ts";
import type { EndpointEventStatus, WebhookEndpointRow } from "./webhooks.table.ts";

/** The delivered body: compact JSON with `type`, `timestamp` and `data` in that order. */
export const webhookBody = (payload: WebhookEventRow["payload"]): string =>
  JSON.stringify({ type: payload.type, timestamp: payload.timestamp, data: payload.data });

export const toWebhookEndpoint = (row: WebhookEndpointRow, secret: string): WebhookEndpoint => ({
  created_at: toIso(row.created_at),
  modified_at: toIsoOrNull(row.modified_at),
  id: row.id,
  url: row.url,
  name: row.name,
  format: row.format as WebhookFormat,
  secret,
  organization_id: row.organization_id,
  events: row.events as WebhookEventType[],
  enabled: row.enabled,
});

export interface EndpointEventView {
  id: string;
  created_at: Date;
  modified_at: Date | null;
  type: string;
  status: EndpointEventStatus;
  attempts: number;
  last_http_code: number | null;
  payload: WebhookEventRow["payload"];
}

export const toWebhookEvent = (row: EndpointEventView): WebhookEvent => ({
  created_at: toIso(row.created_at),
  modified_at: toIsoOrNull(row.modified_at),
  id: row.id,
  last_http_code: row.last_http_code,
  succeeded: row.status === "succeeded" ? true : row.status === "failed" || row.attempts > 0 ? false : null,
  skipped: row.status === "skipped",
  payload: webhookBody(row.payload),
  type: row.type as WebhookEventType,
  // Payloads are kept for as long as the event: nothing is ever archived here.
  is_archived: false,
});

export interface DeliveryView {
  id: string;
  created_at: Date;
  succeeded: boolean;
  http_code: number | null;
  response: string | null;
  duration_ms: number;
  event: EndpointEventView;
}

export const toWebhookDelivery = (row: DeliveryView): WebhookDelivery => ({
  created_at: toIso(row.created_at),
  // Attempts are written once and never change.
  modified_at: null,
  id: row.id,
  succeeded: row.succeeded,
  http_code: row.http_code,
  response: row.response,
  duration_ms: row.duration_ms,
  webhook_event: toWebhookEvent(row.event),
});
