import { addInterval } from "../../values/calendar.ts";

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Whether a discount no longer applies to the period starting at `periodStart`; its duration counts
 * calendar months from `appliedAt`, the start of the first billed period (the hosted service's rule):
 * `once` discounts only that first period, `repeating` the first `duration_in_months` monthly
 * periods (a yearly plan's first year), `forever` every period.
 */
export function discountExpired(
  discount: { duration: "once" | "forever" | "repeating"; duration_in_months: number | null },
  appliedAt: Date,
  periodStart: Date,
): boolean {
  switch (discount.duration) {
    case "forever":
      return false;
    case "once":
      return periodStart > appliedAt;
    case "repeating":
      return periodStart > addInterval(appliedAt, "month", Math.max((discount.duration_in_months ?? 1) - 1, 0));
  }
}

/** Days between the dunning retries after the 1st, 2nd, 3rd and 4th failed charge; the 5th ends it. */
export const DUNNING_RETRY_DAYS = [2, 5, 7, 7] as const;
/** Without a payment method the charge is retried weekly until the deadline. */
const NO_METHOD_RETRY_DAYS = 7;
/** How long a subscription may stay past due: 21 days and a minute after it first fell due. */
const DUNNING_WINDOW_MS = 21 * DAY_MS + 60 * 1000;

/**
 * The hosted service's dunning schedule after a failed charge: failures at t0, +2, +7, +14 and +21 days,
 * the fifth revoking the subscription; at or past the deadline it is revoked whatever the count (the
 * schedule's own attempts all fall before it). A first failure whose decline code rules out a retry
 * (`unrecoverable`: a lost or expired card) waits for the deadline instead: one last attempt then,
 * in case the customer put a new card on file meanwhile (which retries at once anyway).
 */
export function dunningStep(input: { failures: number; pastDueAt: Date; now: Date; hasMethod: boolean; unrecoverable: boolean }): {
  revoke: boolean;
  nextAttemptAt: Date | null;
} {
  const deadline = input.pastDueAt.getTime() + DUNNING_WINDOW_MS;
  if (input.failures > DUNNING_RETRY_DAYS.length || input.now.getTime() >= deadline) return { revoke: true, nextAttemptAt: null };
  if (input.unrecoverable && input.failures <= 1) return { revoke: false, nextAttemptAt: new Date(deadline) };
  const days = input.hasMethod ? DUNNING_RETRY_DAYS[Math.max(input.failures, 1) - 1]! : NO_METHOD_RETRY_DAYS;
  return { revoke: false, nextAttemptAt: new Date(input.now.getTime() + days * DAY_MS) };
}
