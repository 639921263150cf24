import { Type, type Static, type TSchema } from "@sinclair/typebox";
import { ListResource, MetadataQuery, OneOrMany, PaginationQuery, SortingQuery } from "../../schema/pagination.ts";
import { DateTime, Nullable, StringEnum, Uuid4 } from "../../schema/primitives.ts";
import { Customer } from "../customers/customers.schemas.ts";

export const EventSourceValues = ["system", "user"] as const;
export type EventSource = (typeof EventSourceValues)[number];
export const EventSource = StringEnum(EventSourceValues, { title: "EventSource" });

export const EventSortKeys = ["timestamp"] as const;
export const EventSortProperty = StringEnum(["timestamp", "-timestamp"] as const, { title: "EventSortProperty" });
export type EventSortProperty = Static<typeof EventSortProperty>;

/** Cost amounts in cents, up to 5 integer and 12 decimal digits; a number or its decimal text. */
const COST_AMOUNT_PATTERN = "^(?!^[-+.]*$)[+-]?0*(?:\\d{0,5}|(?=[\\d.]{1,18}0*$)\\d{0,5}\\.\\d{0,12}0*$)";
const costCurrency = Type.String({ pattern: "usd", description: "The currency. Currently, only `usd` is supported." });

export const CostMetadataInput = Type.Object(
  {
    amount: Type.Union([Type.Number(), Type.String({ pattern: COST_AMOUNT_PATTERN })], { description: "The amount in cents." }),
    currency: costCurrency,
  },
  { title: "CostMetadata" },
);

export const CostMetadataOutput = Type.Object(
  { amount: Type.String({ pattern: COST_AMOUNT_PATTERN, description: "The amount in cents." }), currency: costCurrency },
  { title: "CostMetadata" },
);

export const LLMMetadata = Type.Object(
  {
    vendor: Type.String({ description: "The vendor of the event." }),
    model: Type.String({ description: "The model used for the event." }),
    prompt: Type.Optional(Nullable(Type.String(), { description: "The LLM prompt used for the event." })),
    response: Type.Optional(Nullable(Type.String(), { description: "The LLM response used for the event." })),
    input_tokens: Type.Integer({ description: "The number of LLM input tokens used for the event." }),
    cached_input_tokens: Type.Optional(Type.Integer({ description: "The number of LLM cached tokens used for the event." })),
    output_tokens: Type.Integer({ description: "The number of LLM output tokens used for the event." }),
    total_tokens: Type.Integer({ description: "The total number of LLM tokens used for the event." }),
  },
  { title: "LLMMetadata" },
);

const metadataObject = <C extends TSchema, V extends TSchema>(title: string, cost: C, value: V) =>
  Type.Object({ _cost: Type.Optional(cost), _llm: Type.Optional(LLMMetadata) }, { title, additionalProperties: value });

export const EventMetadataInput = metadataObject(
  "EventMetadataInput",
  CostMetadataInput,
  Type.Union([Type.String({ minLength: 1, maxLength: 500 }), Type.Integer(), Type.Number(), Type.Boolean()]),
);
export const EventMetadataOutput = metadataObject(
  "EventMetadataOutput",
  CostMetadataOutput,
  Type.Union([Type.String(), Type.Integer(), Type.Number(), Type.Boolean()]),
);
export type EventMetadataOutput = Static<typeof EventMetadataOutput>;

const eventCreateFields = {
  timestamp: Type.Optional(DateTime({ description: "The timestamp of the event; timezone-aware, not in the future. Defaults to now." })),
  name: Type.String({ maxLength: 128, description: "The name of the event." }),
  organization_id: Type.Optional(
    Nullable(Uuid4({ description: "The organization ID." }), {
      description: "The ID of the organization owning the event. Required unless you use an organization token.",
    }),
  ),
  external_id: Type.Optional(Nullable(Type.String(), { description: "Your unique identifier for this event, used for deduplication." })),
  parent_id: Type.Optional(
    Nullable(Type.String(), { description: "The ID of the parent event: a Polar event ID or an external event ID." }),
  ),
  metadata: Type.Optional(EventMetadataInput),
};

export const EventCreateCustomer = Type.Object(
  {
    ...eventCreateFields,
    customer_id: Uuid4({ description: "ID of the customer in your organization associated with the event." }),
    member_id: Type.Optional(Nullable(Uuid4(), { description: "ID of the member of the customer who performed the action." })),
  },
  { title: "EventCreateCustomer" },
);
export type EventCreateCustomer = Static<typeof EventCreateCustomer>;

export const EventCreateExternalCustomer = Type.Object(
  {
    ...eventCreateFields,
    external_customer_id: Type.String({ description: "ID of the customer in your system associated with the event." }),
    external_member_id: Type.Optional(
      Nullable(Type.String(), { description: "ID in your system of the member who performed the action." }),
    ),
  },
  { title: "EventCreateExternalCustomer" },
);
export type EventCreateExternalCustomer = Static<typeof EventCreateExternalCustomer>;

export type EventCreate = EventCreateCustomer | EventCreateExternalCustomer;

export const EventsIngest = Type.Object(
  {
    events: Type.Array(Type.Union([EventCreateCustomer, EventCreateExternalCustomer]), { description: "List of events to ingest." }),
  },
  { title: "EventsIngest" },
);
export type EventsIngest = Static<typeof EventsIngest>;

export const EventsIngestResponse = Type.Object(
  {
    inserted: Type.Integer({ description: "Number of events inserted." }),
    // Optional in the reference; always sent here.
    duplicates: Type.Optional(Type.Integer({ description: "Number of duplicate events skipped.", default: 0 })),
  },
  { title: "EventsIngestResponse" },
);
export type EventsIngestResponse = Static<typeof EventsIngestResponse>;

/** An event created through the ingestion API; the only source this service stores. */
export const UserEvent = Type.Object(
  {
    id: Uuid4({ description: "The ID of the object." }),
    timestamp: DateTime({ description: "The timestamp of the event." }),
    organization_id: Uuid4({ description: "The ID of the organization owning the event." }),
    customer_id: Nullable(Uuid4(), { description: "ID of the customer in your organization associated with the event." }),
    customer: Nullable(Customer, { description: "The customer associated with the event." }),
    external_customer_id: Nullable(Type.String(), { description: "ID of the customer in your system associated with the event." }),
    // The next four are optional in the reference; always sent here.
    member_id: Type.Optional(Nullable(Uuid4(), { description: "ID of the member of the customer who performed the action." })),
    external_member_id: Type.Optional(
      Nullable(Type.String(), { description: "ID in your system of the member who performed the action." }),
    ),
    child_count: Type.Optional(Type.Integer({ description: "Number of direct child events linked to this event.", default: 0 })),
    parent_id: Type.Optional(Nullable(Uuid4(), { description: "The ID of the parent event." })),
    label: Type.String({ description: "Human readable label of the event type." }),
    name: Type.String({ description: "The name of the event." }),
    source: Type.Literal("user", { description: "`user` events are the ones created through the ingestion API." }),
    metadata: EventMetadataOutput,
  },
  { title: "UserEvent" },
);
export const Event = UserEvent;
export type Event = Static<typeof Event>;

export const ListResourceEvent = ListResource(Event, { title: "ListResource[Event]" });
export type ListResourceEvent = Static<typeof ListResourceEvent>;

/** How many levels below a root (or the `parent_id` event) a list may reach, as the reference allows. */
const MAX_EVENT_DEPTH = 5;

// The list form only: a bad value is reported at its index (`["query", "customer_id", 0]`).
const repeatable = { listOnly: true, maxItems: false } as const;

/** The filters the event list and the event names share: whose events, of which source. */
export const eventOwnerFilters = {
  organization_id: OneOrMany(Uuid4(), "Filter by organization ID. Repeat the parameter for several values.", repeatable),
  customer_id: OneOrMany(Uuid4(), "Filter by customer ID. Repeat the parameter for several values.", repeatable),
  external_customer_id: OneOrMany(Type.String(), "Filter by external customer ID. Repeat the parameter for several values.", repeatable),
  source: OneOrMany(EventSource, "Filter by event source. Repeat the parameter for several values.", repeatable),
};

// Bounds the reference leaves open; see docs/decisions.md ("String bounds").
const QUERY_MAX = 256;

export const EventListQuery = Type.Object({
  start_timestamp: Type.Optional(DateTime({ description: "Only events after this timestamp." })),
  end_timestamp: Type.Optional(DateTime({ description: "Only events before this timestamp." })),
  ...eventOwnerFilters,
  name: OneOrMany(Type.String(), "Filter by event name. Repeat the parameter for several values.", repeatable),
  query: Type.Optional(
    Type.String({
      maxLength: QUERY_MAX,
      description: "Text in the event's name or source, its customer's id, external ID, name or email, or words of its metadata.",
    }),
  ),
  parent_id: Type.Optional(
    Uuid4({ description: "Only the direct children of this event; with `depth`, its descendants instead of the root events'." }),
  ),
  depth: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: MAX_EVENT_DEPTH,
      description:
        "Root events (no parent) and their descendants down to this many levels: 0 = root events only, 1 = roots and their children, and so on; the roots, too, must pass the other filters. Unset: every event.",
    }),
  ),
  metadata: MetadataQuery(),
  meter_id: Type.Optional(
    Uuid4({ description: "Only the events this meter counts: its filter, and a numeric property where its function needs one." }),
  ),
  filter: Type.Optional(
    Type.String({ maxLength: 20_000, description: "A meter filter as JSON text (`{conjunction, clauses}`): only the events it matches." }),
  ),
  ...PaginationQuery,
  sorting: SortingQuery(EventSortKeys, ["-timestamp"]),
});
export type EventListQuery = Static<typeof EventListQuery>;

/** One event name of a source, with how often and when it occurred. */
export const EventName = Type.Object(
  {
    name: Type.String({ description: "The name of the event." }),
    label: Type.String({ description: "Human readable label of the event." }),
    source: EventSource,
    occurrences: Type.Integer({ description: "Number of times the event has occurred." }),
    first_seen: DateTime({ description: "The first time the event occurred." }),
    last_seen: DateTime({ description: "The last time the event occurred." }),
  },
  { title: "EventName" },
);
export type EventName = Static<typeof EventName>;

export const ListResourceEventName = ListResource(EventName, { title: "ListResource[EventName]" });
export type ListResourceEventName = Static<typeof ListResourceEventName>;

export const EventNameSortKeys = ["name", "occurrences", "first_seen", "last_seen"] as const;
export type EventNameSortKey = (typeof EventNameSortKeys)[number];

export const EventNameListQuery = Type.Object({
  ...eventOwnerFilters,
  query: Type.Optional(
    Type.String({ maxLength: QUERY_MAX, description: "Text in the event name (case-insensitive) to filter event names." }),
  ),
  ...PaginationQuery,
  sorting: SortingQuery(EventNameSortKeys, ["-last_seen"], {}, { title: "EventNamesSortProperty" }),
});
export type EventNameListQuery = Static<typeof EventNameListQuery>;
