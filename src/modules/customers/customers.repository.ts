import { expressionBuilder, sql, type Expression, type Insertable, type RawBuilder, type SqlBool, type Updateable } from "kysely";
import type { Database, Executor, SubqueryScope } from "../../db/database.ts";
import type { OrganizationScope } from "../../http/auth.ts";
import { metadataMatches } from "../../db/list-filters.ts";
import { containsPattern, type MetadataFilter, type SortCriterion } from "../../schema/pagination.ts";
import type { CustomerSortKeys } from "./customers.schemas.ts";
import type { CustomersTable } from "./customers.table.ts";
import type { CustomerReadRow } from "./customers.mapper.ts";
import { jsonObjectFrom } from "kysely/helpers/postgres";
import { countRows } from "../../db/count-rows.ts";
import { customerDependentReads } from "./customer-dependent-reads.ts";

/**
 * The `first_user_event_at` column of a statement over the customers table named `table`: the
 * earliest user event matched by customer id or by external id (events may arrive before the
 * customer exists, so it can predate `created_at`).
 */
export const firstUserEventAt = (table: "c" | "customers" = "c") => {
  const { earliestUserEventAt } = customerDependentReads();
  const organizationId = sql.ref<string>(`${table}.organization_id`);
  return sql<Date | null>`LEAST(
    ${earliestUserEventAt(organizationId, "customer_id", sql.ref(`${table}.id`))},
    ${earliestUserEventAt(organizationId, "external_customer_id", sql.ref(`${table}.external_id`))}
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

export const findCustomerByExternalIdForUpdate = (db: Executor, externalId: string, allowed: OrganizationScope) =>
  live(db, allowed).selectAll().where("external_id", "=", externalId).forUpdate().executeTakeFirst();

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
      const billable = customerDependentReads().hasBillableSubscription(eb.ref("c.id"));
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
/** Every live customer the caller may see, of the given organizations (all when null), newest first: the CSV export. */
export const exportCustomerRows = (db: Executor, allowed: OrganizationScope, organizationIds: readonly string[] | null) =>
  filtered(db, allowed, { organizationIds }).selectAll().orderBy("created_at", "desc").orderBy("id", "desc").execute();

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

// What the payments list reads of a customer, as an expression of its own statement (payments, the
// lowest feature, imports none: services.ts hands it over).

/** Whether the customer of the caller's `customerId` column has one of `emails` (lowercase), case-insensitively. */
export const customerEmailIn = (customerId: Expression<string>, emails: readonly string[]): Expression<SqlBool> => {
  const eb = expressionBuilder<Database>();
  return eb.exists(
    eb
      .selectFrom("customers as c")
      .select("c.id")
      .where("c.id", "=", customerId)
      .where((inner) => inner(inner.fn("lower", ["c.email"]), "in", emails)),
  );
};

// What orders and subscriptions read of their customers: beside their statements, and inside them
// as expressions over the caller's `customerId` column.

/** A customer, deleted or not (a subscription bills its customer to the end). */
export const findCustomerEvenDeleted = (db: Executor, id: string) =>
  db.selectFrom("customers").selectAll().where("id", "=", id).executeTakeFirstOrThrow();

/** The method the customer pays with when what it pays for has none of its own. */
export const defaultPaymentMethodId = async (db: Executor, customerId: string): Promise<string | null> =>
  (await db.selectFrom("customers").select("default_payment_method_id").where("id", "=", customerId).executeTakeFirstOrThrow())
    .default_payment_method_id;

/** The customer's email, a sort key of the caller's rows. */
export const customerEmailOf = (customerId: Expression<string>) =>
  sql<string | null>`(SELECT c.email FROM customers c WHERE c.id = ${customerId})`;

/** The customer as the read schemas embed it (with its first user event), a JSON column of the caller's statement. */
export const customerJson = (customerId: Expression<string>) =>
  jsonObjectFrom(
    expressionBuilder<Database>().selectFrom("customers as c").selectAll("c").select(firstUserEventAt()).where("c.id", "=", customerId),
  );

/** The customers' contact columns an export prints, a table to join under `alias`. */
export const customerContacts = <A extends string>(alias: A) =>
  expressionBuilder<Database>().selectFrom("customers").select(["id", "email", "name", "billing_name", "billing_address"]).as(alias);

/** The customer's locale, a column of the caller's statement. */
export const customerLocaleOf = (customerId: Expression<string>) =>
  expressionBuilder<Database>().selectFrom("customers as cu").select("cu.locale").where("cu.id", "=", customerId).$asScalar();

// What events and meters read of customers: beside their statements, and inside them as
// fragments over the caller's columns.

/** Organization of each live (not deleted) customer among `ids`, in one query. */
export async function findLiveCustomerOrganizations(db: Executor, ids: readonly string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .selectFrom("customers")
    .select(["id", "organization_id"])
    .where("id", "in", ids)
    .where("deleted_at", "is", null)
    .execute();
  return new Map(rows.map((row) => [row.id, row.organization_id]));
}

/** The organization's live customers with one of these ids or external ids: their id and external id. */
export const liveCustomerIdentities = (db: Executor, organizationId: string, ids: readonly string[], externalIds: readonly string[]) =>
  db
    .selectFrom("customers")
    .select(["id", "external_id"])
    .where("organization_id", "=", organizationId)
    .where("deleted_at", "is", null)
    .where((eb) =>
      eb.or([...(ids.length > 0 ? [eb("id", "in", ids)] : []), ...(externalIds.length > 0 ? [eb("external_id", "in", externalIds)] : [])]),
    )
    .execute();

/**
 * A sub-select of the organization's live customer (`id`, `organization_id`) whose `column` is
 * `value`: a lookup in that column's unique index.
 */
export const liveCustomerWhere = (organizationId: Expression<string>, column: "id" | "external_id", value: Expression<string | null>) =>
  sql<{
    id: string;
    organization_id: string;
  }>`SELECT c.id, c.organization_id FROM customers c WHERE c.organization_id = ${organizationId} AND c.deleted_at IS NULL
      AND ${sql.ref(`c.${column}`)} = ${value}`;

/** The id of the organization's live customer holding `externalId` (null when none does), as a scalar sub-select. */
export const liveCustomerIdOfExternalId = (organizationId: Expression<string>, externalId: Expression<string>) =>
  sql<string | null>`(SELECT c.id FROM customers c
      WHERE c.organization_id = ${organizationId} AND c.external_id = ${externalId} AND c.deleted_at IS NULL LIMIT 1)`;

/**
 * Whether the customer a row names (by `id`, else by the live one holding `externalId`, in the
 * organization) has `pattern` (an ILIKE pattern) in its id, external id, name or email.
 */
export const namedCustomerMatches = (
  named: { organizationId: Expression<string>; id: Expression<string | null>; externalId: Expression<string | null> },
  pattern: string,
) =>
  sql<SqlBool>`EXISTS (
      SELECT 1 FROM customers c
      WHERE c.organization_id = ${named.organizationId}
        AND (c.id = ${named.id} OR (${named.id} IS NULL AND c.deleted_at IS NULL AND c.external_id = ${named.externalId}))
        AND (c.id::text ILIKE ${pattern} OR c.external_id ILIKE ${pattern} OR c.name ILIKE ${pattern} OR c.email ILIKE ${pattern})
    )`;

/**
 * Whether a row naming its customer by id or by external id (an event) names one of these customers,
 * either way: an id also matches its customer's external id, an external id also the id of the live
 * customer holding it (the hosted service expands each filter to the other identifier).
 */
export function namedCustomerIn(
  named: { organizationId: Expression<string>; id: Expression<string | null>; externalId: Expression<string | null> },
  by: { ids: readonly string[] } | { externalIds: readonly string[] },
): RawBuilder<SqlBool> {
  if ("ids" in by) {
    const ids = sql`${sql.val([...by.ids])}::uuid[]`;
    return sql<SqlBool>`(${named.id} = ANY(${ids}) OR ${named.externalId} IN (
      SELECT c.external_id FROM customers c WHERE c.id = ANY(${ids}) AND c.organization_id = ${named.organizationId} AND c.external_id IS NOT NULL))`;
  }
  const externalIds = sql`${sql.val([...by.externalIds])}::text[]`;
  return sql<SqlBool>`(${named.externalId} = ANY(${externalIds}) OR ${named.id} IN (
    SELECT c.id FROM customers c
    WHERE c.external_id = ANY(${externalIds}) AND c.organization_id = ${named.organizationId} AND c.deleted_at IS NULL))`;
}

/** A sub-select of customers (`c`), deleted ones included, for a reader to join, filter and order by. */
export const selectCustomers = (db: SubqueryScope) => db.selectFrom("customers as c").selectAll("c");
