/** A moment's wall-clock fields in one time zone, with the zone's offset then (`+01:00`, `-03:30`, `+00:00`). */
export interface ZonedTime {
  year: string;
  month: string;
  day: string;
  hour: string;
  minute: string;
  second: string;
  offset: string;
}

/**
 * The reader of wall-clock fields in an IANA zone, or null for a zone the runtime does not know
 * (the caller's mistake to answer). One formatter per zone and request, not per date.
 */
export function zonedTimeReader(timezone: string): ((moment: Date) => ZonedTime) | null {
  let format: Intl.DateTimeFormat;
  try {
    format = new Intl.DateTimeFormat("en-CA", {
      timeZone: timezone,
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
      hourCycle: "h23",
      timeZoneName: "longOffset",
    });
  } catch {
    return null;
  }
  return (moment) => {
    const parts = Object.fromEntries(format.formatToParts(moment).map((part) => [part.type, part.value]));
    // `GMT+01:00`, or a bare `GMT` at offset zero.
    const offset = (parts.timeZoneName ?? "GMT").replace(/^GMT/, "") || "+00:00";
    return {
      year: parts.year!,
      month: parts.month!,
      day: parts.day!,
      hour: parts.hour!,
      minute: parts.minute!,
      second: parts.second!,
      offset,
    };
  };
}
