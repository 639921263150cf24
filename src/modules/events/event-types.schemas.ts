import { Type, type Static } from "@sinclair/typebox";
import { ListResource, PaginationQuery, SortingQuery } from "../../schema/pagination.ts";
import { DateTime, IdField, Nullable, TimestampedFields, Uuid4 } from "../../schema/primitives.ts";
import { EventSource, eventOwnerFilters } from "./events.schemas.ts";

const organizationId = Uuid4({ description: "The ID of the organization owning the event type." });
const name = Type.String({ description: "The name of the event type." });
const label = Type.String({ description: "The label for the event type." });
const labelPropertySelector = Nullable(Type.String(), { description: "Property path to extract dynamic label from event metadata." });

/** An organization's event type. */
export const EventType = Type.Object(
  {
    ...TimestampedFields,
    ...IdField,
    name,
    label,
    label_property_selector: Type.Optional(labelPropertySelector),
    organization_id: organizationId,
  },
  { title: "EventType" },
);
export type EventType = Static<typeof EventType>;

/** An event type with its events' statistics; system event types have no row, hence no id or timestamps. */
export const EventTypeWithStats = Type.Object(
  {
    id: Type.Optional(Nullable(Uuid4(), { description: "The ID of the event type. Null for system event types." })),
    created_at: Type.Optional(Nullable(DateTime(), { description: "Creation timestamp of the event type. Null for system event types." })),
    modified_at: Type.Optional(
      Nullable(DateTime(), { description: "Last modification timestamp of the event type. Null for system event types." }),
    ),
    name,
    label,
    label_property_selector: Type.Optional(labelPropertySelector),
    organization_id: organizationId,
    source: EventSource,
    occurrences: Type.Integer({ description: "Number of times the event has occurred." }),
    first_seen: DateTime({ description: "The first time the event occurred." }),
    last_seen: DateTime({ description: "The last time the event occurred." }),
  },
  { title: "EventTypeWithStats" },
);
export type EventTypeWithStats = Static<typeof EventTypeWithStats>;

export const ListResourceEventTypeWithStats = ListResource(EventTypeWithStats, { title: "ListResource[EventTypeWithStats]" });
export type ListResourceEventTypeWithStats = Static<typeof ListResourceEventTypeWithStats>;

export const EventTypeUpdate = Type.Object(
  {
    label: Type.String({ minLength: 1, maxLength: 128, description: "The label for the event type." }),
    label_property_selector: Type.Optional(
      Nullable(Type.String({ minLength: 1, maxLength: 256 }), {
        description: "Property path to extract dynamic label from event metadata (e.g., 'subject' or 'metadata.subject').",
      }),
    ),
  },
  { title: "EventTypeUpdate" },
);
export type EventTypeUpdate = Static<typeof EventTypeUpdate>;

export const EventTypeSortKeys = ["name", "label", "occurrences", "first_seen", "last_seen"] as const;
export type EventTypeSortKey = (typeof EventTypeSortKeys)[number];

export const EventTypeListQuery = Type.Object({
  organization_id: eventOwnerFilters.organization_id,
  customer_id: eventOwnerFilters.customer_id,
  external_customer_id: eventOwnerFilters.external_customer_id,
  query: Type.Optional(Type.String({ maxLength: 256, description: "Query to filter event types by name or label." })),
  root_events: Type.Optional(
    Type.Boolean({ default: false, description: "When true, only return event types with root events (parent_id IS NULL)." }),
  ),
  parent_id: Type.Optional(Uuid4({ description: "Filter by specific parent event ID." })),
  source: Type.Optional(EventSource),
  ...PaginationQuery,
  sorting: SortingQuery(EventTypeSortKeys, ["-last_seen"], {}, { title: "EventTypesSortProperty" }),
});
export type EventTypeListQuery = Static<typeof EventTypeListQuery>;

export const EventTypeIdParams = Type.Object({ id: Uuid4({ description: "The event type ID." }) });
