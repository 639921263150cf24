import { sql, type Insertable, type Updateable } from "kysely";
import type { Executor } from "../../db/database.ts";
import type { MemberRole, OrganizationScope } from "../../http/auth.ts";
import type { SortCriterion } from "../../schema/pagination.ts";
import { countRows } from "../../db/count-rows.ts";
import type { MemberSortKeys } from "./members.schemas.ts";
import type { MembersTable } from "./members.table.ts";

export const insertMember = (db: Executor, values: Insertable<MembersTable>) =>
  db.insertInto("members").values(values).returningAll().executeTakeFirstOrThrow();

export const updateMember = (db: Executor, id: string, values: Updateable<MembersTable>) =>
  db.updateTable("members").set(values).where("id", "=", id).returningAll().executeTakeFirstOrThrow();

const liveOf = (db: Executor, customerId: string) =>
  db.selectFrom("members").selectAll().where("customer_id", "=", customerId).where("deleted_at", "is", null);

/** How a member is named within its customer: by id, by external id, or by email (case-insensitive). */
export type MemberKey = { id: string } | { externalId: string } | { email: string };

const byKey = (db: Executor, customerId: string, key: MemberKey) => {
  const query = liveOf(db, customerId);
  if ("id" in key) return query.where("id", "=", key.id);
  if ("externalId" in key) return query.where("external_id", "=", key.externalId);
  return query.where(sql<string>`lower(email)`, "=", key.email.toLowerCase());
};

export const findMember = (db: Executor, customerId: string, key: MemberKey) => byKey(db, customerId, key).executeTakeFirst();

export const findMemberForUpdate = (db: Executor, customerId: string, key: MemberKey) =>
  byKey(db, customerId, key).forUpdate().executeTakeFirst();

export const findOwner = (db: Executor, customerId: string) => liveOf(db, customerId).where("role", "=", "owner").executeTakeFirst();

export const findOwnerForUpdate = (db: Executor, customerId: string) =>
  liveOf(db, customerId).where("role", "=", "owner").forUpdate().executeTakeFirst();

export const countLiveMembers = (db: Executor, customerId: string) => countRows(liveOf(db, customerId));

/** The customer of each live member among `ids` (for checks over a batch, one query). */
export async function findLiveMemberCustomers(db: Executor, ids: readonly string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .selectFrom("members")
    .select(["id", "customer_id"])
    .where("id", "in", ids)
    .where("deleted_at", "is", null)
    .execute();
  return new Map(rows.map((row) => [row.id, row.customer_id]));
}

export interface MemberFilters {
  customerId?: string | null;
  externalCustomerId?: string | null;
  role?: MemberRole | null;
}

/** Live members of live customers, within the organizations a caller may see. */
const listed = (db: Executor, allowed: OrganizationScope, filters: MemberFilters) => {
  let query = db
    .selectFrom("members as m")
    .innerJoin("customers as c", "c.id", "m.customer_id")
    .where("m.deleted_at", "is", null)
    .where("c.deleted_at", "is", null);
  if (allowed !== null) query = query.where("m.organization_id", "in", allowed);
  if (filters.customerId) query = query.where("m.customer_id", "=", filters.customerId);
  if (filters.externalCustomerId) query = query.where("c.external_id", "=", filters.externalCustomerId);
  if (filters.role) query = query.where("m.role", "=", filters.role);
  return query;
};

export const countMembers = (db: Executor, allowed: OrganizationScope, filters: MemberFilters) => countRows(listed(db, allowed, filters));

export const listMembers = (
  db: Executor,
  allowed: OrganizationScope,
  filters: MemberFilters,
  sorting: SortCriterion<(typeof MemberSortKeys)[number]>[],
  offset: number,
  limit: number,
) => {
  let query = listed(db, allowed, filters).selectAll("m");
  for (const { key, direction } of sorting) query = query.orderBy(`m.${key}`, direction);
  return query.orderBy("m.id").offset(offset).limit(limit).execute();
};

/** A customer's live members for the portal: oldest first, the owner among them. */
export const listCustomerMembers = (db: Executor, customerId: string, offset: number, limit: number) =>
  liveOf(db, customerId).orderBy("created_at").orderBy("id").offset(offset).limit(limit).execute();

/** Soft-deletes every live member of a customer (the customer's own deletion); their sessions stop authenticating with them. */
export const deleteMembersOfCustomer = (db: Executor, customerId: string, now: Date) =>
  db
    .updateTable("members")
    .set({ deleted_at: now, modified_at: now })
    .where("customer_id", "=", customerId)
    .where("deleted_at", "is", null)
    .execute();

/** Members by id, deleted ones included (a seat still names the member it was given to). */
export const membersByIds = (db: Executor, ids: readonly string[]) =>
  ids.length ? db.selectFrom("members").selectAll().where("id", "in", ids).execute() : Promise.resolve([]);
