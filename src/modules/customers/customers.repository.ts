import { sql, type Insertable, type Updateable } from "kysely";
import type { Executor, SubqueryScope } from "../../db/database.ts";
import type { OrganizationScope } from "../../http/auth.ts";
import { containsPattern, metadataMatches, type MetadataFilter, type SortCriterion } from "../../schema/pagination.ts";
import type { CustomerSortKeys } from "./customers.schemas.ts";
import type { CustomersTable } from "./customers.table.ts";
import type { CustomerReadRow } from "./customers.mapper.ts";
import { countRows } from "../../db/count-rows.ts";

/**
 * The `first_user_event_at` column of a statement over the customers table named `table`: the
 * earliest user event matched by customer id or by external id (events may arrive before the
 * customer exists, so it can predate `created_at`).
 */
export const firstUserEventAt = (table: "c" | "customers" = "c") => {
  const column = (name: "id" | "organization_id" | "external_id") => sql.ref(`${table}.${name}`);
  return sql<Date | null>`LEAST(
    (SELECT min(e."timestamp") FROM events e WHERE e.organization_id = ${column("organization_id")} AND e.customer_id = ${column("id")} AND e.source = 'user'),
    (SELECT min(e."timestamp") FROM events e WHERE e.organization_id = ${column("organization_id")} AND e.external_customer_id = ${column("external_id")} AND e.source = 'user')
  )`.as("first_user_event_at");
};

export const insertCustomer = (db: Executor, values: Insertable<CustomersTable>) =>
  db.insertInto("customers").values(values).returningAll().returning(firstUserEventAt("customers")).executeTakeFirstOrThrow();

const live = (db: Executor, allowed: OrganizationScope) => {
  let query = db.selectFrom("customers as c").where("deleted_at", "is", null);
  if (allowed !== null) query = query.where("organization_id", "in", allowed);
  return query;
};

export const findCustomer = (db: Executor, id: string, allowed: OrganizationScope) =>
  live(db, allowed).selectAll().select(firstUserEventAt()).where("id", "=", id).executeTakeFirst();

export const findCustomerForUpdate = (db: Executor, id: string, allowed: OrganizationScope) =>
  live(db, allowed).selectAll().where("id", "=", id).forUpdate().executeTakeFirst();

export const findCustomerByExternalId = (db: Executor, externalId: string, allowed: OrganizationScope) =>
  live(db, allowed).selectAll().select(firstUserEventAt()).where("external_id", "=", externalId).orderBy("created_at").executeTakeFirst();

/** Another live customer of the organization holding this email (case-insensitive) or external ID. */
export const findClash = (db: Executor, organizationId: string, field: "email" | "external_id", value: string, exceptId: string | null) => {
  let query = live(db, [organizationId]).select("id");
  query = field === "email" ? query.where(sql<string>`lower(email)`, "=", value.toLowerCase()) : query.where("external_id", "=", value);
  if (exceptId !== null) query = query.where("id", "<>", exceptId);
  return query.executeTakeFirst();
};

export const updateCustomer = (db: Executor, id: string, values: Updateable<CustomersTable>) =>
  db
    .updateTable("customers")
    .set(values)
    .where("id", "=", id)
    .returningAll()
    .returning(firstUserEventAt("customers"))
    .executeTakeFirstOrThrow();

export interface CustomerFilters {
  organizationIds: readonly string[] | null;
  email?: string;
  query?: string;
  active?: boolean;
  metadata?: MetadataFilter;
}

const filtered = (db: Executor, allowed: OrganizationScope, filters: CustomerFilters) => {
  let query = live(db, allowed);
  if (filters.organizationIds !== null) query = query.where("organization_id", "in", filters.organizationIds);
  if (filters.email !== undefined) query = query.where(sql<string>`lower(email)`, "=", filters.email.toLowerCase());
  if (filters.query !== undefined) {
    const pattern = containsPattern(filters.query);
    query = query.where((eb) => eb.or([eb("email", "ilike", pattern), eb("name", "ilike", pattern), eb("external_id", "ilike", pattern)]));
  }
  // Active means a trialing, active or past_due subscription (the hosted service's rule); `false` is the complement.
  if (filters.active !== undefined) {
    const active = filters.active;
    query = query.where((eb) => {
      const billable = eb.exists(
        eb
          .selectFrom("subscriptions as s")
          .select("s.id")
          .whereRef("s.customer_id", "=", "c.id")
          .where("s.status", "in", ["trialing", "active", "past_due"]),
      );
      return active ? billable : eb.not(billable);
    });
  }
  const metadata = filters.metadata;
  if (metadata) query = query.where((eb) => metadataMatches(eb, "c.metadata", metadata));
  return query;
};

export const countCustomers = (db: Executor, allowed: OrganizationScope, filters: CustomerFilters): Promise<number> =>
  countRows(filtered(db, allowed, filters));

export const listCustomers = (
  db: Executor,
  allowed: OrganizationScope,
  filters: CustomerFilters,
  sorting: SortCriterion<(typeof CustomerSortKeys)[number]>[],
  offset: number,
  limit: number,
) => {
  let query = filtered(db, allowed, filters).selectAll().select(firstUserEventAt());
  for (const { key, direction } of sorting) query = query.orderBy(sql.ref(key), direction);
  return query.orderBy("id").offset(offset).limit(limit).execute();
};
/** Customers as the read schema shows them, deleted ones included (they stay embedded in orders and keys). */
export const selectCustomersForRead = (db: SubqueryScope) => db.selectFrom("customers as c").selectAll("c").select(firstUserEventAt());

/** Customers as the read schema shows them, by id. */
export const customersByIds = async (db: Executor, ids: readonly string[]): Promise<Map<string, CustomerReadRow>> => {
  if (ids.length === 0) return new Map();
  const rows = await selectCustomersForRead(db)
    .where("c.id", "in", [...new Set(ids)])
    .execute();
  return new Map(rows.map((row) => [row.id, row]));
};
