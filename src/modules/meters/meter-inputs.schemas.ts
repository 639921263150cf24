import { Type, type Static } from "@sinclair/typebox";
import { MetadataQuery, OneOrMany, PaginationQuery, SortingQuery } from "../../schema/pagination.ts";
import { DateTime, MetadataInput, Nullable, StringEnum, Uuid4 } from "../../schema/primitives.ts";
import { TimeIntervalSchema } from "../../schema/time-intervals.ts";
import { Aggregation, AggregationFunctionValues, Filter, MeterUnit } from "./meters.schemas.ts";

// Bounds the reference leaves open: docs/decisions.md ("Meters: filters", "String bounds").
const Name = Type.String({
  minLength: 3,
  maxLength: 256,
  description: "The name of the meter. Will be shown on customer's invoices and usage.",
});
const CustomLabel = Type.String({ maxLength: 256, description: "The label for the custom unit; required when unit is `custom`." });
const CustomMultiplier = Type.Integer({ exclusiveMinimum: 0, maximum: 2147483647, description: "Base units per displayed unit." });

export const MeterCreate = Type.Object(
  {
    metadata: Type.Optional(MetadataInput()),
    name: Name,
    unit: Type.Optional(MeterUnit),
    custom_label: Type.Optional(Nullable(CustomLabel)),
    custom_multiplier: Type.Optional(Nullable(CustomMultiplier)),
    filter: Filter,
    aggregation: Aggregation,
    organization_id: Type.Optional(Nullable(Uuid4({ description: "Owning organization; required unless you use an organization token." }))),
  },
  { title: "MeterCreate" },
);
export type MeterCreate = Static<typeof MeterCreate>;

export const MeterUpdate = Type.Object(
  {
    metadata: Type.Optional(MetadataInput()),
    name: Type.Optional(Nullable(Name)),
    unit: Type.Optional(Nullable(MeterUnit)),
    custom_label: Type.Optional(Nullable(CustomLabel)),
    custom_multiplier: Type.Optional(Nullable(CustomMultiplier)),
    filter: Type.Optional(Nullable(Filter)),
    aggregation: Type.Optional(Nullable(Aggregation)),
    is_archived: Type.Optional(Nullable(Type.Boolean({ description: "Whether the meter is archived." }))),
  },
  { title: "MeterUpdate" },
);
export type MeterUpdate = Static<typeof MeterUpdate>;

export const MeterSortKeys = ["created_at", "name"] as const;
export const MeterListQuery = Type.Object({
  organization_id: OneOrMany(Uuid4(), "Filter by organization ID.", { listOnly: true }),
  query: Type.Optional(Type.String({ maxLength: 256, description: "Filter by name." })),
  is_archived: Type.Optional(Type.Boolean({ description: "Filter on archived meters." })),
  ...PaginationQuery,
  sorting: SortingQuery(MeterSortKeys, ["name"], {}, { title: "MeterSortProperty" }),
  metadata: MetadataQuery(),
});
export type MeterListQuery = Static<typeof MeterListQuery>;

export const MeterQuantitiesQuery = Type.Object({
  start_timestamp: DateTime({ description: "Start timestamp." }),
  end_timestamp: DateTime({ description: "End timestamp." }),
  interval: TimeIntervalSchema,
  timezone: Type.Optional(
    Type.String({ minLength: 1, maxLength: 64, default: "UTC", description: "IANA time zone of the intervals (default UTC)." }),
  ),
  customer_id: OneOrMany(Uuid4(), "Filter by customer ID.", { listOnly: true }),
  external_customer_id: OneOrMany(Type.String({ maxLength: 256 }), "Filter by external customer ID.", { listOnly: true }),
  customer_aggregation_function: Type.Optional(
    Nullable(StringEnum(AggregationFunctionValues, { title: "AggregationFunction" }), {
      description: "Aggregate per customer first, then across customers with this function.",
    }),
  ),
  metadata: MetadataQuery(),
});
export type MeterQuantitiesQuery = Static<typeof MeterQuantitiesQuery>;
