/**
 * ISO 8601 durations as token lifetimes: weeks, days, hours, minutes and seconds. Years and months
 * have no fixed length, so they are refused rather than guessed.
 */
const PATTERN = /^P(?:(\d+)W)?(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d+)?)S)?)?$/;

export function durationToMilliseconds(text: string): number | null {
  const match = PATTERN.exec(text);
  if (!match || text === "P" || text.endsWith("T")) return null;
  const [, weeks, days, hours, minutes, seconds] = match.map((part) => (part === undefined ? 0 : Number(part)));
  const total = ((((weeks ?? 0) * 7 + (days ?? 0)) * 24 + (hours ?? 0)) * 60 + (minutes ?? 0)) * 60 + (seconds ?? 0);
  return total > 0 ? Math.round(total * 1000) : null;
}
