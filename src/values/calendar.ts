/** The calendar units a recurring interval counts in (the `RecurringInterval` of the wire schemas). */
export type CalendarUnit = "day" | "week" | "month" | "year";

/**
 * `count` calendar units after `from`, in UTC. Months and years land on `anchorDay` (by default
 * `from`'s day of month), clamped to the target month's length: 31 January + 1 month = 28/29
 * February, and with anchor day 31, 28 February + 1 month = 31 March. The time of day is kept, so
 * a period is whole UTC days long and daylight-saving changes of any zone cannot shift it.
 */
export function addInterval(from: Date, unit: CalendarUnit, count: number, anchorDay = from.getUTCDate()): Date {
  const result = new Date(from.getTime());
  if (unit === "day" || unit === "week") {
    result.setUTCDate(result.getUTCDate() + count * (unit === "week" ? 7 : 1));
    return result;
  }
  const months = unit === "year" ? count * 12 : count;
  result.setUTCDate(1);
  result.setUTCMonth(result.getUTCMonth() + months);
  const lastDay = new Date(Date.UTC(result.getUTCFullYear(), result.getUTCMonth() + 1, 0)).getUTCDate();
  result.setUTCDate(Math.min(anchorDay, lastDay));
  return result;
}
