import { Type, type Static } from "@sinclair/typebox";
import { ListResource, OneOrMany, PaginationQuery } from "../../schema/pagination.ts";
import { DateTime, IdField, Nullable, StringEnum, TimestampedFields, Uuid4 } from "../../schema/primitives.ts";

export const WebhookFormatValues = ["raw", "discord", "slack"] as const;
export type WebhookFormat = (typeof WebhookFormatValues)[number];
export const WebhookFormat = StringEnum(WebhookFormatValues, { title: "WebhookFormat" });

export const WebhookEventTypeValues = [
  "checkout.created",
  "checkout.updated",
  "checkout.expired",
  "customer.created",
  "customer.updated",
  "customer.deleted",
  "customer.state_changed",
  "customer_seat.assigned",
  "customer_seat.claimed",
  "customer_seat.revoked",
  "member.created",
  "member.updated",
  "member.deleted",
  "order.created",
  "order.updated",
  "order.paid",
  "order.refunded",
  "subscription.created",
  "subscription.updated",
  "subscription.active",
  "subscription.canceled",
  "subscription.uncanceled",
  "subscription.cycled",
  "subscription.revoked",
  "subscription.past_due",
  "subscription.paused",
  "subscription.resumed",
  "refund.created",
  "refund.updated",
  "product.created",
  "product.updated",
  "discount.created",
  "discount.updated",
  "discount.deleted",
  "benefit.created",
  "benefit.updated",
  "benefit_grant.created",
  "benefit_grant.cycled",
  "benefit_grant.updated",
  "benefit_grant.revoked",
  "organization.updated",
] as const;
export type WebhookEventType = (typeof WebhookEventTypeValues)[number];
export const WebhookEventType = StringEnum(WebhookEventTypeValues, { title: "WebhookEventType" });

const URL_MAX_LENGTH = 2083;
/** Not bounded by the reference; bounded here so a name cannot be used to store megabytes. */
export const NAME_MAX_LENGTH = 256;

const UrlInput = Type.String({
  format: "uri",
  minLength: 1,
  maxLength: URL_MAX_LENGTH,
  description: "The URL where the webhook events will be sent.",
});
const NameInput = Nullable(Type.String({ maxLength: NAME_MAX_LENGTH }), {
  description: "An optional name for the webhook endpoint to help organize and identify it.",
});
const EventsInput = Type.Array(WebhookEventType, { description: "The events that will trigger the webhook." });

export const WebhookEndpoint = Type.Object(
  {
    ...TimestampedFields,
    ...IdField,
    url: Type.String({ description: "The URL where the webhook events will be sent." }),
    name: Type.Optional(
      Nullable(Type.String(), { description: "An optional name for the webhook endpoint to help organize and identify it." }),
    ),
    format: WebhookFormat,
    secret: Type.String({ description: "The secret used to sign the webhook events." }),
    organization_id: Uuid4({ description: "The organization ID associated with the webhook endpoint." }),
    events: Type.Array(WebhookEventType, { description: "The events that will trigger the webhook." }),
    enabled: Type.Boolean({ description: "Whether the webhook endpoint is enabled and will receive events." }),
  },
  { title: "WebhookEndpoint", description: "A webhook endpoint." },
);
export type WebhookEndpoint = Static<typeof WebhookEndpoint>;

export const WebhookEndpointCreate = Type.Object(
  {
    url: UrlInput,
    name: Type.Optional(NameInput),
    format: WebhookFormat,
    events: EventsInput,
    organization_id: Type.Optional(
      Nullable(Uuid4(), {
        description: "The organization ID associated with the webhook endpoint. Required unless you use an organization token.",
      }),
    ),
  },
  { title: "WebhookEndpointCreate", additionalProperties: false },
);
export type WebhookEndpointCreate = Static<typeof WebhookEndpointCreate>;

export const WebhookEndpointUpdate = Type.Object(
  {
    url: Type.Optional(Nullable(UrlInput)),
    name: Type.Optional(NameInput),
    format: Type.Optional(Nullable(WebhookFormat)),
    events: Type.Optional(Nullable(EventsInput)),
    enabled: Type.Optional(Nullable(Type.Boolean({ description: "Whether the webhook endpoint is enabled." }))),
  },
  { title: "WebhookEndpointUpdate", additionalProperties: false },
);
export type WebhookEndpointUpdate = Static<typeof WebhookEndpointUpdate>;

export const WebhookEvent = Type.Object(
  {
    ...TimestampedFields,
    ...IdField,
    last_http_code: Type.Optional(
      Nullable(Type.Integer(), { description: "Last HTTP code returned by the URL; null before any attempt or when unreachable." }),
    ),
    succeeded: Type.Optional(Nullable(Type.Boolean(), { description: "Whether this event was delivered; null before any attempt." })),
    skipped: Type.Boolean({ description: "Whether this event was skipped because the webhook endpoint was disabled." }),
    payload: Nullable(Type.String(), { description: "The payload of the webhook event." }),
    type: WebhookEventType,
    is_archived: Type.Boolean({ description: "Whether this event is archived: archived events cannot be redelivered." }),
  },
  { title: "WebhookEvent", description: "A webhook event owed to one endpoint." },
);
export type WebhookEvent = Static<typeof WebhookEvent>;

export const WebhookDelivery = Type.Object(
  {
    ...TimestampedFields,
    ...IdField,
    succeeded: Type.Boolean({ description: "Whether the delivery was successful." }),
    http_code: Nullable(Type.Integer(), { description: "The HTTP code returned by the URL; null if the endpoint was unreachable." }),
    response: Nullable(Type.String(), { description: "The start of the response body, or the error if the endpoint was unreachable." }),
    // An extension (the dashboard shows each delivery's latency): optional, so the reference's clients pass over it.
    duration_ms: Type.Optional(
      Type.Integer({ description: "How long the attempt took, in milliseconds, until the answer or the failure (an extension)." }),
    ),
    webhook_event: WebhookEvent,
  },
  { title: "WebhookDelivery", description: "A webhook delivery for a webhook event." },
);
export type WebhookDelivery = Static<typeof WebhookDelivery>;

export const ListResourceWebhookEndpoint = ListResource(WebhookEndpoint, { title: "ListResource[WebhookEndpoint]" });
export const ListResourceWebhookDelivery = ListResource(WebhookDelivery, { title: "ListResource[WebhookDelivery]" });

// These filters have never capped how often a parameter repeats; kept so.
const unbounded = { maxItems: false } as const;

export const WebhookEndpointListQuery = Type.Object({
  organization_id: OneOrMany(Uuid4(), "Filter by organization ID.", unbounded),
  ...PaginationQuery,
});
export type WebhookEndpointListQuery = Static<typeof WebhookEndpointListQuery>;

export const HttpCodeClassValues = ["2xx", "3xx", "4xx", "5xx"] as const;

export const WebhookDeliveryListQuery = Type.Object({
  endpoint_id: OneOrMany(Uuid4(), "Filter by webhook endpoint ID.", unbounded),
  start_timestamp: Type.Optional(DateTime({ description: "Filter deliveries after this timestamp." })),
  end_timestamp: Type.Optional(DateTime({ description: "Filter deliveries before this timestamp." })),
  succeeded: Type.Optional(Type.Boolean({ description: "Filter by delivery success status." })),
  query: Type.Optional(Type.String({ maxLength: 256, description: "Text to look for in the event payload or the response." })),
  http_code_class: Type.Optional(StringEnum(HttpCodeClassValues, { description: "Filter by HTTP response code class." })),
  event_type: OneOrMany(WebhookEventType, "Filter by webhook event type.", unbounded),
  ...PaginationQuery,
});
export type WebhookDeliveryListQuery = Static<typeof WebhookDeliveryListQuery>;

export const WebhookEndpointIdParams = Type.Object({ id: Uuid4({ description: "The webhook endpoint ID." }) });
export const WebhookEventIdParams = Type.Object({ id: Uuid4({ description: "The webhook event ID." }) });
