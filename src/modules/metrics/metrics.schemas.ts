import { Type, type Static, type TSchema } from "@sinclair/typebox";
import { OneOrMany } from "../../schema/pagination.ts";
import { StringEnum, Uuid4 } from "../../schema/primitives.ts";
import { TimeIntervalSchema } from "../../schema/time-intervals.ts";
import { ProductBillingType } from "../orders/orders.schemas.ts";
import { PresentmentCurrency } from "../organizations/organizations.schemas.ts";
import { METRIC_SLUGS } from "./metric-definitions.ts";

const MetricsIntervalLimit = Type.Object(
  {
    min_days: Type.Integer({ description: "Minimum number of days for this interval." }),
    max_days: Type.Integer({ description: "Maximum number of days for this interval." }),
  },
  { title: "MetricsIntervalLimit", description: "Date interval limit to get metrics for a given interval." },
);

const MetricsIntervalsLimits = Type.Object(
  {
    hour: MetricsIntervalLimit,
    day: MetricsIntervalLimit,
    week: MetricsIntervalLimit,
    month: MetricsIntervalLimit,
    year: MetricsIntervalLimit,
  },
  { title: "MetricsIntervalsLimits", description: "Date interval limits to get metrics for each interval." },
);

export const MetricsLimits = Type.Object(
  {
    min_date: Type.String({ format: "date", description: "Minimum date to get metrics." }),
    intervals: MetricsIntervalsLimits,
  },
  { title: "MetricsLimits", description: "Date limits to get metrics." },
);
export type MetricsLimits = Static<typeof MetricsLimits>;

export const MetricsQuery = Type.Object({
  start_date: Type.String({ format: "date", description: "Start date." }),
  end_date: Type.String({ format: "date", description: "End date." }),
  timezone: Type.Optional(
    Type.String({ minLength: 1, maxLength: 64, default: "UTC", description: "Timezone to use for the timestamps. Default is UTC." }),
  ),
  interval: TimeIntervalSchema,
  organization_id: OneOrMany(Uuid4(), "Filter by organization ID."),
  product_id: OneOrMany(Uuid4(), "Filter by product ID."),
  billing_type: OneOrMany(
    ProductBillingType,
    "Filter by billing type. `recurring` will filter data corresponding to subscriptions creations or renewals. `one_time` will filter data corresponding to one-time purchases.",
  ),
  customer_id: OneOrMany(Uuid4(), "Filter by customer ID."),
  metrics: OneOrMany(Type.String({ maxLength: 64 }), "List of metric slugs to focus on. If not provided, all metrics are returned.", {
    listOnly: true,
  }),
  // An extension (docs/decisions.md, "Metrics: one currency"): the hosted service converts to USD.
  currency: Type.Optional(PresentmentCurrency),
});
export type MetricsQuery = Static<typeof MetricsQuery>;

const MetricValue = Type.Number();
const values = (schema: TSchema) => Object.fromEntries(METRIC_SLUGS.map((slug) => [slug, Type.Optional(schema)]));

const MetricPeriod = Type.Object(
  { timestamp: Type.String({ format: "date-time", description: "Timestamp of this period data." }), ...values(MetricValue) },
  { title: "MetricPeriod" },
);

const Metric = Type.Object(
  {
    slug: Type.String({ description: "Unique identifier for the metric." }),
    display_name: Type.String({ description: "Human-readable name for the metric." }),
    type: StringEnum(["scalar", "currency", "currency_sub_cent", "percentage"] as const, {
      title: "MetricType",
      description: "Type of the metric, useful to know the unit or format of the value.",
    }),
  },
  { title: "Metric", description: "Information about a metric." },
);

export const MetricsResponse = Type.Object(
  {
    periods: Type.Array(MetricPeriod, { description: "List of data for each timestamp." }),
    totals: Type.Object(values(MetricValue), { title: "MetricsTotals", description: "Totals for the whole selected period." }),
    metrics: Type.Object(values(Metric), { title: "Metrics", description: "Information about the returned metrics." }),
  },
  { title: "MetricsResponse", description: "Metrics response schema." },
);
export type MetricsResponse = Static<typeof MetricsResponse>;
