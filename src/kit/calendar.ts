import type { RecurringInterval } from "./schema.ts";

/**
 * `count` calendar units after `from`, in UTC. Months and years keep the day of month, clamped to
 * the target month's length (31 January + 1 month = 28/29 February).
 */
export function addInterval(from: Date, unit: RecurringInterval, count: number): Date {
  const result = new Date(from.getTime());
  if (unit === "day" || unit === "week") {
    result.setUTCDate(result.getUTCDate() + count * (unit === "week" ? 7 : 1));
    return result;
  }
  const months = unit === "year" ? count * 12 : count;
  const day = result.getUTCDate();
  result.setUTCDate(1);
  result.setUTCMonth(result.getUTCMonth() + months);
  const lastDay = new Date(Date.UTC(result.getUTCFullYear(), result.getUTCMonth() + 1, 0)).getUTCDate();
  result.setUTCDate(Math.min(day, lastDay));
  return result;
}
