import { sql } from "kysely";
import type { Executor } from "../../db/database.ts";
import { nextCheckoutExpiryAt } from "../checkouts/checkouts.steps.ts";
import { nextPaymentRetryAt } from "../orders/orders.steps.ts";
import { nextSubscriptionDueAt } from "../subscriptions/subscriptions.steps.ts";

/**
 * One advance of an organization at a time, across processes: a session advisory lock, held on the
 * connection given (one of its own) until released.
 */
export const lockClockAdvance = async (connection: Executor, organizationId: string): Promise<void> => {
  await sql`SELECT pg_advisory_lock(hashtextextended(${`test-clock:${organizationId}`}, 0))`.execute(connection);
};

export const unlockClockAdvance = async (connection: Executor, organizationId: string): Promise<void> => {
  await sql`SELECT pg_advisory_unlock(hashtextextended(${`test-clock:${organizationId}`}, 0))`.execute(connection);
};

/**
 * The earliest time anything of the organization comes due, in one statement: a period end (renewal,
 * trial end, end of a canceled period), a resume, a dunning retry or a checkout's expiry; null when none.
 */
export async function nextDueAt(db: Executor, organizationId: string): Promise<Date | null> {
  const { rows } = await sql<{ due: Date | null }>`SELECT least(
      ${nextSubscriptionDueAt(organizationId)},
      ${nextPaymentRetryAt(organizationId)},
      ${nextCheckoutExpiryAt(organizationId)}
    ) AS due`.execute(db);
  return rows[0]?.due ?? null;
}
