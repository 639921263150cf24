import { sql } from "kysely";
import type { Executor } from "../../db/database.ts";
import type { CustomerRow } from "./customers.table.ts";

/** A live customer of the organization by id, external id or email (emails match case-insensitively). */
export async function findLiveCustomer(
  db: Executor,
  organizationId: string,
  where: { id: string } | { externalId: string } | { email: string },
): Promise<CustomerRow | undefined> {
  let query = db.selectFrom("customers").selectAll().where("organization_id", "=", organizationId).where("deleted_at", "is", null);
  if ("id" in where) query = query.where("id", "=", where.id);
  else if ("externalId" in where) query = query.where("external_id", "=", where.externalId);
  else query = query.where((eb) => eb(eb.fn("lower", ["email"]), "=", where.email.toLowerCase()));
  return query.executeTakeFirst();
}

/** Transaction-scoped advisory locks on an organization's buyer identities, taken in the order given. */
export async function lockBuyerIdentities(db: Executor, organizationId: string, identities: readonly string[]): Promise<void> {
  for (const identity of identities)
    await sql`SELECT pg_advisory_xact_lock(hashtextextended(${`${organizationId}:${identity}`}, 0))`.execute(db);
}
