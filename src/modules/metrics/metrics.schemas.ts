import { Type, type Static } from "@sinclair/typebox";

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
