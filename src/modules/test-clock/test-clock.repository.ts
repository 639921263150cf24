import { sql } from "kysely";
import type { Executor } from "../../db/database.ts";
import type { OrganizationScope } from "../../http/auth.ts";

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

export const findClockOffset = async (db: Executor, organizationId: string, allowed: OrganizationScope): Promise<number | undefined> => {
  let query = db.selectFrom("organizations").select("clock_offset_ms").where("id", "=", organizationId);
  if (allowed !== null) query = query.where("id", "in", allowed);
  return (await query.executeTakeFirst())?.clock_offset_ms;
};

export const setClockOffset = (db: Executor, organizationId: string, offsetMs: number) =>
  db.updateTable("organizations").set({ clock_offset_ms: offsetMs }).where("id", "=", organizationId).execute();

/**
 * The earliest time anything of the organization comes due: a period end (renewal, trial end,
 * end of a canceled period), a resume, a dunning retry or a checkout's expiry; null when none.
 */
export async function nextDueAt(db: Executor, organizationId: string): Promise<Date | null> {
  const { rows } = await sql<{ due: Date | null }>`SELECT least(
      (SELECT min(current_period_end) FROM subscriptions
        WHERE organization_id = ${organizationId} AND status IN ('trialing','active','past_due') AND started_at IS NOT NULL),
      (SELECT min(resumes_at) FROM subscriptions WHERE organization_id = ${organizationId} AND status = 'paused'),
      (SELECT min(next_payment_attempt_at) FROM orders
        WHERE organization_id = ${organizationId} AND status = 'pending' AND subscription_id IS NOT NULL),
      (SELECT min(expires_at) FROM checkouts WHERE organization_id = ${organizationId} AND status = 'open')
    ) AS due`.execute(db);
  return rows[0]?.due ?? null;
}

export const dueCheckoutIds = async (db: Executor, organizationId: string, now: Date): Promise<string[]> =>
  (
    await db
      .selectFrom("checkouts")
      .select("id")
      .where("organization_id", "=", organizationId)
      .where("status", "=", "open")
      .where("expires_at", "<=", now)
      .orderBy("expires_at")
      .execute()
  ).map((row) => row.id);
