import type { Insertable } from "kysely";
import type { Executor } from "../../db/database.ts";
import type { PortalSignInKind, PortalSignInsTable } from "./portal-sign-ins.table.ts";

/** The new row, or undefined when its secret's hash is already taken (a code drawn twice). */
export const insertPortalSignIn = (db: Executor, values: Insertable<PortalSignInsTable>) =>
  db
    .insertInto("portal_sign_ins")
    .values(values)
    .onConflict((oc) => oc.column("secret_hash").doNothing())
    .returningAll()
    .executeTakeFirst();

/**
 * Uses a live sign-in: the row is deleted as it is read, so of two requests racing with one secret
 * only one gets it. Null when unknown, expired, or voided by wrong tries.
 */
export function takeLiveSignIn(
  db: Executor,
  where: { kind: PortalSignInKind; secretHash: string; organizationId: string | null; now: Date; maxFailures: number },
) {
  let query = db
    .deleteFrom("portal_sign_ins")
    .where("kind", "=", where.kind)
    .where("secret_hash", "=", where.secretHash)
    .where("expires_at", ">", where.now)
    .where("failed_attempts", "<", where.maxFailures);
  if (where.organizationId !== null) query = query.where("organization_id", "=", where.organizationId);
  return query.returningAll().executeTakeFirst();
}

/** One wrong try against every live code the client asked for; the codes that reach the limit are deleted (void). */
export async function countWrongTry(db: Executor, requesterHash: string, now: Date, maxFailures: number): Promise<void> {
  await db
    .updateTable("portal_sign_ins")
    .set((eb) => ({ failed_attempts: eb("failed_attempts", "+", 1) }))
    .where("requester_hash", "=", requesterHash)
    .where("expires_at", ">", now)
    .execute();
  await db.deleteFrom("portal_sign_ins").where("requester_hash", "=", requesterHash).where("failed_attempts", ">=", maxFailures).execute();
}

/** Sign-ins past their expiry: nothing can use them any more. */
export const deleteExpiredSignIns = (db: Executor, now: Date) => db.deleteFrom("portal_sign_ins").where("expires_at", "<=", now).execute();

/** The live customers of an organization with a live member of an email (case-insensitive), oldest first, with the member's address. */
export const liveCustomersOfMemberEmail = (db: Executor, organizationId: string, email: string) =>
  db
    .selectFrom("customers as c")
    .innerJoin("members as m", "m.customer_id", "c.id")
    .selectAll("c")
    .select("m.email as member_email")
    .where("c.organization_id", "=", organizationId)
    .where("c.deleted_at", "is", null)
    .where("m.deleted_at", "is", null)
    .where((eb) => eb(eb.fn("lower", ["m.email"]), "=", email.toLowerCase()))
    .orderBy("c.created_at")
    .limit(100)
    .execute();

/** The live customers of an organization with an email (case-insensitive), oldest first. */
export const liveCustomersWithEmail = (db: Executor, organizationId: string, email: string) =>
  db
    .selectFrom("customers")
    .selectAll()
    .where("organization_id", "=", organizationId)
    .where("deleted_at", "is", null)
    .where((eb) => eb(eb.fn("lower", ["email"]), "=", email.toLowerCase()))
    .orderBy("created_at")
    .limit(100)
    .execute();
