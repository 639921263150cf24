/**
 * When to try a failed delivery again: the Standard Webhooks recommended schedule (about three
 * days in all), each delay jittered so that endpoints failing together do not retry together,
 * and never sooner than the receiver's `Retry-After`.
 */
const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/** Delay after the n-th failed attempt (index n - 1). */
export const RETRY_SCHEDULE_MS = [
  5 * SECOND,
  5 * MINUTE,
  30 * MINUTE,
  2 * HOUR,
  5 * HOUR,
  10 * HOUR,
  14 * HOUR,
  20 * HOUR,
  24 * HOUR,
] as const;

/** The first attempt plus one per scheduled retry. */
export const MAX_ATTEMPTS = RETRY_SCHEDULE_MS.length + 1;

/** Each delay is drawn from [80 %, 120 %] of its nominal value. */
export const JITTER = 0.2;

const LONGEST_DELAY_MS = Math.max(...RETRY_SCHEDULE_MS);

/** `Retry-After` as seconds or an HTTP date, in milliseconds from `now`; null when absent or unreadable. */
export function parseRetryAfter(header: string | null, now: Date): number | null {
  if (header === null) return null;
  const trimmed = header.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * SECOND;
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? null : Math.max(0, date - now.getTime());
}

/**
 * The time of the next attempt after `failedAttempts` failures, or null when the schedule is
 * exhausted. A `Retry-After` longer than the jittered delay wins, capped at the longest step so
 * that a receiver cannot park its queue indefinitely.
 */
export function nextAttemptAt(
  failedAttempts: number,
  now: Date,
  retryAfterMs: number | null,
  random: () => number = Math.random,
): Date | null {
  const nominal = RETRY_SCHEDULE_MS[failedAttempts - 1];
  if (nominal === undefined) return null;
  const jittered = Math.round(nominal * (1 - JITTER + 2 * JITTER * random()));
  const delay = Math.max(jittered, Math.min(retryAfterMs ?? 0, LONGEST_DELAY_MS));
  return new Date(now.getTime() + delay);
}

/**
 * How long a failing event holds back the later events of its object: through its first four
 * attempts (nominally 35 minutes: 5 s + 5 min + 30 min, at most 42 min with jitter, longer only
 * if the receiver's `Retry-After` asks for it). From then on, a failed attempt sets it aside
 * (later events of its object go ahead while it keeps its own retries) when the endpoint has
 * accepted some delivery since this event first failed: the receiver is up and refuses this one
 * event. An endpoint accepting nothing is down, not poisoned, and order is kept through the outage.
 */
export const ORDER_HOLD_ATTEMPTS = 4;

/** Whether the failed attempt number `attempt` sets its event aside (see `ORDER_HOLD_ATTEMPTS`). */
export function setsAside(attempt: number, firstFailedAt: Date | null, endpointFailingSince: Date): boolean {
  // The endpoint's run of failures began after this event's first failure only if a success came between.
  return attempt >= ORDER_HOLD_ATTEMPTS && firstFailedAt !== null && endpointFailingSince.getTime() > firstFailedAt.getTime();
}
