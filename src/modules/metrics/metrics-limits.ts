import { EARLIEST_DATE, INTERVAL_LIMITS } from "../../schema/time-intervals.ts";
import type { MetricsLimits } from "./metrics.schemas.ts";

/** The ranges a metrics request may ask for: the table meter quantities enforce too. */
export function metricsLimits(): MetricsLimits {
  const { hour, day, week, month, year } = INTERVAL_LIMITS;
  return {
    min_date: EARLIEST_DATE,
    intervals: { hour: { ...hour }, day: { ...day }, week: { ...week }, month: { ...month }, year: { ...year } },
  };
}
