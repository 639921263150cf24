import { fieldIssue, type ValidationIssue } from "../http/errors.ts";
import { StringEnum } from "./primitives.ts";

/**
 * The intervals of a time series (meter quantities, metrics) and the ranges the hosted service
 * allows for each: one table, so the limits `/v1/metrics/limits` publishes are the ones enforced.
 */
export const TimeIntervalValues = ["year", "month", "week", "day", "hour"] as const;
export type TimeInterval = (typeof TimeIntervalValues)[number];
export const TimeIntervalSchema = StringEnum(TimeIntervalValues, {
  title: "TimeInterval",
  description: "Interval between two timestamps.",
});

/**
 * Days a range may span per interval, as the hosted service bounds it (at most a few thousand
 * points). Only `max_days` is enforced; `min_days` is advice for a chart (docs/decisions.md).
 */
export const INTERVAL_LIMITS: Readonly<Record<TimeInterval, { min_days: number; max_days: number }>> = {
  hour: { min_days: 0, max_days: 7 },
  day: { min_days: 0, max_days: 366 },
  week: { min_days: 14, max_days: 371 },
  month: { min_days: 60, max_days: 1460 },
  year: { min_days: 366, max_days: 3650 },
};

/** The earliest date a series may start at. */
export const EARLIEST_DATE = "2023-01-01";

const DAY_MS = 86_400_000;

/**
 * The hosted service's one refusal of a range, at `["query"]`: an end before the start, or more
 * days than the interval allows. Null when the range is fine.
 */
export function intervalRangeIssue(start: Date, end: Date, interval: TimeInterval, input: unknown): ValidationIssue | null {
  const days = (end.getTime() - start.getTime()) / DAY_MS;
  if (days >= 0 && days <= INTERVAL_LIMITS[interval].max_days) return null;
  return fieldIssue(
    ["query"],
    "The interval is too small for the given date range. Use a larger interval or reduce the date range.",
    input,
    "value_error",
  );
}
