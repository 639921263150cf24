import type { Insertable } from "kysely";
import { countRows } from "../../db/count-rows.ts";
import type { Executor } from "../../db/database.ts";
import type { EmailRow, EmailsTable } from "./emails.table.ts";

/** Writes an email unless its cause already wrote one; the new row's id, or null for a repeated cause. */
export async function insertEmailOnce(db: Executor, values: Insertable<EmailsTable>): Promise<string | null> {
  const row = await db
    .insertInto("emails")
    .values(values)
    .onConflict((conflict) => conflict.column("dedupe_key").doNothing())
    .returning("id")
    .executeTakeFirst();
  return row?.id ?? null;
}

/** A pending email, locked for its send; undefined once sent, failed, or kept. */
export const findPendingEmailForUpdate = (db: Executor, id: string): Promise<EmailRow | undefined> =>
  db.selectFrom("emails").selectAll().where("id", "=", id).where("status", "=", "pending").forUpdate().executeTakeFirst();

/**
 * Up to `limit` other pending emails never tried yet, oldest first, locked for a send; rows another
 * send holds are skipped, never waited for.
 */
export const claimFreshPendingEmails = (db: Executor, excludeId: string, limit: number): Promise<EmailRow[]> =>
  db
    .selectFrom("emails")
    .selectAll()
    .where("status", "=", "pending")
    .where("attempts", "=", 0)
    .where("id", "<>", excludeId)
    .orderBy("created_at")
    .orderBy("id")
    .limit(limit)
    .forUpdate()
    .skipLocked()
    .execute();

/** The outcome of one attempt: the new status (pending while retried), the error if any, the time sent. */
export async function recordAttempt(
  db: Executor,
  id: string,
  outcome: { status: EmailRow["status"]; lastError: string | null; sentAt: Date | null },
): Promise<void> {
  await db
    .updateTable("emails")
    .set((eb) => ({ status: outcome.status, last_error: outcome.lastError, sent_at: outcome.sentAt, attempts: eb("attempts", "+", 1) }))
    .where("id", "=", id)
    .execute();
}

/** The newest emails first, optionally of one status. */
export const listEmails = (db: Executor, filter: { status: EmailRow["status"] | null; limit: number }): Promise<EmailRow[]> => {
  let query = db.selectFrom("emails").selectAll();
  if (filter.status) query = query.where("status", "=", filter.status);
  return query.orderBy("created_at", "desc").orderBy("id", "desc").limit(filter.limit).execute();
};

/** One organization's emails, newest first, optionally of one status. */
const organizationEmails = (db: Executor, organizationId: string, status: EmailRow["status"] | null) => {
  const query = db.selectFrom("emails").where("organization_id", "=", organizationId);
  return status ? query.where("status", "=", status) : query;
};

export const countOrganizationEmails = (db: Executor, organizationId: string, status: EmailRow["status"] | null): Promise<number> =>
  countRows(organizationEmails(db, organizationId, status));

export const listOrganizationEmails = (
  db: Executor,
  filter: { organizationId: string; status: EmailRow["status"] | null; offset: number; limit: number },
): Promise<EmailRow[]> =>
  organizationEmails(db, filter.organizationId, filter.status)
    .selectAll()
    .orderBy("created_at", "desc")
    .orderBy("id", "desc")
    .offset(filter.offset)
    .limit(filter.limit)
    .execute();

export const findOrganizationEmail = (db: Executor, organizationId: string, id: string): Promise<EmailRow | undefined> =>
  organizationEmails(db, organizationId, null).selectAll().where("id", "=", id).executeTakeFirst();

export const findEmail = (db: Executor, id: string): Promise<EmailRow | undefined> =>
  db.selectFrom("emails").selectAll().where("id", "=", id).executeTakeFirst();

/** Whether an email was written for this cause already (whatever became of it). */
export const emailRecorded = async (db: Executor, dedupeKey: string): Promise<boolean> =>
  (await db.selectFrom("emails").select("id").where("dedupe_key", "=", dedupeKey).executeTakeFirst()) !== undefined;
