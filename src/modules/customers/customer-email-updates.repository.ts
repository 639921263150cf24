import type { Insertable } from "kysely";
import type { Executor } from "../../db/database.ts";
import type { CustomerEmailUpdatesTable } from "./customer-email-updates.table.ts";

export const insertEmailUpdate = (db: Executor, values: Insertable<CustomerEmailUpdatesTable>) =>
  db.insertInto("customer_email_updates").values(values).returningAll().executeTakeFirstOrThrow();

/** A customer's pending requests, and everyone's expired ones: a new request replaces them. */
export const deleteStaleEmailUpdates = (db: Executor, customerId: string, now: Date) =>
  db
    .deleteFrom("customer_email_updates")
    .where((eb) => eb.or([eb("customer_id", "=", customerId), eb("expires_at", "<=", now)]))
    .execute();

export const findLiveEmailUpdate = (db: Executor, tokenHash: string, now: Date) =>
  db.selectFrom("customer_email_updates").selectAll().where("token_hash", "=", tokenHash).where("expires_at", ">", now).executeTakeFirst();

/** Uses a live request: deleted as it is read, so of two verifications racing with one token only one gets it. */
export const takeLiveEmailUpdate = (db: Executor, tokenHash: string, now: Date) =>
  db
    .deleteFrom("customer_email_updates")
    .where("token_hash", "=", tokenHash)
    .where("expires_at", ">", now)
    .returningAll()
    .executeTakeFirst();
