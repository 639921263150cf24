import { Type, type Static, type TSchema } from "@sinclair/typebox";
import { DateTime, MetadataOutput, Nullable, StringEnum, Uuid4 } from "../../schema/primitives.ts";
import { ListResource } from "../../schema/pagination.ts";
import { MeterUnit } from "../products/prices.schemas.ts";

export { MeterUnit };

export const FilterOperatorValues = ["eq", "ne", "gt", "gte", "lt", "lte", "like", "not_like"] as const;
export type FilterOperator = (typeof FilterOperatorValues)[number];
export const FilterOperator = StringEnum(FilterOperatorValues, { title: "FilterOperator" });
export const FilterConjunction = StringEnum(["and", "or"] as const, { title: "FilterConjunction" });

export const FilterClause = Type.Object(
  {
    property: Type.String({
      maxLength: 256,
      description: "`name`, `source`, `timestamp`, or a dotted metadata path (`metadata.` optional).",
    }),
    operator: FilterOperator,
    value: Type.Union([Type.String({ maxLength: 1000 }), Type.Integer({ minimum: -2147483648, maximum: 2147483647 }), Type.Boolean()]),
  },
  { title: "FilterClause" },
);
export type FilterClause = Static<typeof FilterClause>;

/**
 * How deep conjunctions may nest, and how many clauses one filter may hold in all: bounds the
 * reference leaves open (docs/decisions.md, "Meters: filters"). The schema is written out level by
 * level rather than as a recursive `$ref`, so one schema serves bodies, queries and responses.
 */
export const FILTER_MAX_DEPTH = 5;
export const FILTER_MAX_CLAUSES = 100;

const filterLevel = (inner: TSchema | null) =>
  Type.Object(
    {
      conjunction: FilterConjunction,
      clauses: Type.Array(inner === null ? FilterClause : Type.Union([FilterClause, inner]), { maxItems: FILTER_MAX_CLAUSES }),
    },
    { title: "Filter" },
  );

let level = filterLevel(null);
for (let depth = 1; depth < FILTER_MAX_DEPTH; depth += 1) level = filterLevel(level);
export const Filter = Type.Unsafe<MeterFilter>(level);

/** A filter as stored and evaluated: clauses and nested filters, at most `FILTER_MAX_DEPTH` deep. */
export interface MeterFilter {
  conjunction: "and" | "or";
  clauses: (FilterClause | MeterFilter)[];
}

export const CountAggregation = Type.Object(
  { func: Type.Optional(Type.Literal("count", { default: "count" })) },
  { title: "CountAggregation" },
);
export const PropertyAggregation = Type.Object(
  { func: StringEnum(["sum", "max", "min", "avg"] as const), property: Type.String({ maxLength: 256 }) },
  { title: "PropertyAggregation" },
);
export const UniqueAggregation = Type.Object(
  { func: Type.Optional(Type.Literal("unique", { default: "unique" })), property: Type.String({ maxLength: 256 }) },
  { title: "UniqueAggregation" },
);
export const Aggregation = Type.Union([CountAggregation, PropertyAggregation, UniqueAggregation], {
  description: "The aggregation to apply on the filtered events to calculate the meter.",
});

/** An aggregation as stored: its function always written out. */
export type MeterAggregation =
  { func: "count" } | { func: "sum" | "max" | "min" | "avg"; property: string } | { func: "unique"; property: string };
export type AggregationFunction = MeterAggregation["func"];
export const AggregationFunctionValues = ["count", "sum", "max", "min", "avg", "unique"] as const;

// The response's aggregation always names its function.
const AggregationOutput = Type.Union([
  Type.Object({ func: Type.Literal("count") }, { title: "CountAggregation" }),
  PropertyAggregation,
  Type.Object({ func: Type.Literal("unique"), property: Type.String() }, { title: "UniqueAggregation" }),
]);

export const Meter = Type.Object(
  {
    metadata: MetadataOutput(),
    created_at: DateTime({ description: "Creation timestamp of the object." }),
    modified_at: Nullable(DateTime(), { description: "Last modification timestamp of the object." }),
    id: Uuid4({ description: "The ID of the object." }),
    name: Type.String({ description: "The name of the meter. Will be shown on customer's invoices and usage." }),
    unit: MeterUnit,
    // The next three are optional in the reference; always sent here.
    custom_label: Type.Optional(Nullable(Type.String(), { description: "The label for the custom unit." })),
    custom_multiplier: Type.Optional(
      Nullable(Type.Integer(), { description: "The multiplier to convert from base unit to display scale." }),
    ),
    filter: Filter,
    aggregation: AggregationOutput,
    organization_id: Uuid4({ description: "The ID of the organization owning the meter." }),
    archived_at: Type.Optional(Nullable(DateTime(), { description: "When the meter was archived; null while it is active." })),
  },
  { title: "Meter" },
);
export type Meter = Static<typeof Meter>;

export const ListResourceMeter = ListResource(Meter, { title: "ListResource[Meter]" });
export type ListResourceMeter = Static<typeof ListResourceMeter>;

export const MeterQuantity = Type.Object(
  {
    timestamp: DateTime({ description: "The timestamp for the current period." }),
    quantity: Type.Number({ description: "The quantity for the current period." }),
  },
  { title: "MeterQuantity" },
);
export const MeterQuantities = Type.Object(
  {
    quantities: Type.Array(MeterQuantity),
    total: Type.Number({ description: "The total quantity for the period." }),
  },
  { title: "MeterQuantities" },
);
export type MeterQuantities = Static<typeof MeterQuantities>;
