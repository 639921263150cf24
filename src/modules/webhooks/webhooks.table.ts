import type { Generated, Selectable } from "kysely";

export interface WebhookEndpointsTable {
  id: Generated<string>;
  created_at: Generated<Date>;
  modified_at: Date | null;
  deleted_at: Generated<Date | null>;
  organization_id: string;
  url: string;
  name: string | null;
  format: string;
  /** The signing secret, encrypted with the server secret (it must be read back to sign). */
  secret_sealed: string;
  /** The secret a rotation replaced, sealed likewise; it signs beside the current one until it expires. */
  previous_secret_sealed: Generated<string | null>;
  previous_secret_expires_at: Generated<Date | null>;
  events: string[];
  enabled: Generated<boolean>;
  /** The first failed attempt since the last successful one; null while deliveries succeed. */
  failing_since: Date | null;
}
export type WebhookEndpointRow = Selectable<WebhookEndpointsTable>;

export type EndpointEventStatus = "pending" | "succeeded" | "failed" | "skipped";

/** One outbox event as owed to one endpoint: the `WebhookEvent` of the wire. */
export interface WebhookEndpointEventsTable {
  id: Generated<string>;
  created_at: Generated<Date>;
  modified_at: Date | null;
  organization_id: string;
  endpoint_id: string;
  event_id: string;
  type: string;
  /** Place in the endpoint's order: the outbox position, or a fresh one when redelivered. */
  sequence: number;
  /** The event's object (`order:<id>`, …): a copy waits for the earlier undelivered copies of its object that hold order. */
  ordering_key: Generated<string>;
  /**
   * Whether later copies of its object wait for it. False once set aside (refused again and again
   * by an endpoint that accepts other deliveries) and for a redelivery, sent out of band.
   */
  holds_order: Generated<boolean>;
  /** The first failed attempt of its current schedule; null until one fails. */
  first_failed_at: Generated<Date | null>;
  status: Generated<EndpointEventStatus>;
  attempts: Generated<number>;
  last_http_code: number | null;
  next_attempt_at: Date;
}
export type WebhookEndpointEventRow = Selectable<WebhookEndpointEventsTable>;

export interface WebhookDeliveriesTable {
  id: Generated<string>;
  created_at: Generated<Date>;
  organization_id: string;
  endpoint_id: string;
  endpoint_event_id: string;
  attempt: number;
  succeeded: boolean;
  http_code: number | null;
  response: string | null;
  duration_ms: number;
}
