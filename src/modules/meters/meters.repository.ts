import { sql, type Insertable, type Updateable } from "kysely";
import { countRows } from "../../db/count-rows.ts";
import type { Executor, SubqueryScope } from "../../db/database.ts";
import type { OrganizationScope } from "../../http/auth.ts";
import { metadataMatches } from "../../db/list-filters.ts";
import { containsPattern, type MetadataFilter, type SortCriterion } from "../../schema/pagination.ts";
import { liveCustomerIdentities } from "../customers/customers.steps.ts";
import type { MeterSortKeys } from "./meter-inputs.schemas.ts";
import type { MeterRow, MetersTable } from "./meters.table.ts";

export const insertMeter = (db: Executor, values: Insertable<MetersTable>) =>
  db.insertInto("meters").values(values).returningAll().executeTakeFirstOrThrow();

const scoped = (db: Executor, allowed: OrganizationScope) => {
  const query = db.selectFrom("meters as m");
  return allowed === null ? query : query.where("m.organization_id", "in", allowed);
};

export const findMeter = (db: Executor, id: string, allowed: OrganizationScope): Promise<MeterRow | undefined> =>
  scoped(db, allowed).selectAll("m").where("m.id", "=", id).executeTakeFirst();

/** Whether the organization has this meter (a meter-credit benefit's, checked as the benefit is created). */
export const meterExists = async (db: Executor, organizationId: string, meterId: string): Promise<boolean> =>
  (await db
    .selectFrom("meters")
    .select("id")
    .where("id", "=", meterId)
    .where("organization_id", "=", organizationId)
    .executeTakeFirst()) !== undefined;

/** The meter a row references by foreign key (a customer meter's), so it exists: throws otherwise. */
export const referencedMeter = (db: Executor, id: string): Promise<MeterRow> =>
  db.selectFrom("meters").selectAll().where("id", "=", id).executeTakeFirstOrThrow();

export const findMeterForUpdate = (db: Executor, id: string, allowed: OrganizationScope): Promise<MeterRow | undefined> =>
  scoped(db, allowed).selectAll("m").where("m.id", "=", id).forUpdate().executeTakeFirst();

export const updateMeter = (db: Executor, id: string, values: Updateable<MetersTable>) =>
  db.updateTable("meters").set(values).where("id", "=", id).returningAll().executeTakeFirstOrThrow();

/**
 * Every meter of the organization, archived ones too (their buckets stay exact for when they
 * return), locked in id order: one aggregation of the organization at a time, and none while a
 * meter's definition or back-fill changes.
 */
export const findMetersOfOrganizationForUpdate = (db: Executor, organizationId: string): Promise<MeterRow[]> =>
  db.selectFrom("meters").selectAll().where("organization_id", "=", organizationId).orderBy("id").forUpdate().execute();

/** Moves the meters' `aggregated_until` on to `until`. */
export async function markMetersAggregated(db: Executor, ids: readonly string[], until: Date): Promise<void> {
  if (ids.length > 0) await db.updateTable("meters").set({ aggregated_until: until }).where("id", "in", ids).execute();
}

export interface MeterFilters {
  organizationIds: readonly string[] | null;
  query: string | undefined;
  archived: boolean | undefined;
  metadata: MetadataFilter | undefined;
}

const filtered = (db: Executor, allowed: OrganizationScope, filters: MeterFilters) =>
  scoped(db, allowed).where((eb) =>
    eb.and([
      ...(filters.organizationIds !== null && filters.organizationIds.length > 0
        ? [eb("m.organization_id", "in", filters.organizationIds)]
        : []),
      ...(filters.query !== undefined ? [eb("m.name", "ilike", containsPattern(filters.query))] : []),
      ...(filters.archived === undefined ? [] : [eb("m.archived_at", filters.archived ? "is not" : "is", null)]),
      ...(filters.metadata ? [metadataMatches(eb, "m.metadata", filters.metadata)] : []),
    ]),
  );

export const countMeters = (db: Executor, allowed: OrganizationScope, filters: MeterFilters): Promise<number> =>
  countRows(filtered(db, allowed, filters));

export async function listMeters(
  db: Executor,
  allowed: OrganizationScope,
  filters: MeterFilters,
  sorting: SortCriterion<(typeof MeterSortKeys)[number]>[],
  offset: number,
  limit: number,
): Promise<MeterRow[]> {
  let query = filtered(db, allowed, filters).selectAll("m");
  for (const { key, direction } of sorting) query = query.orderBy(sql.ref(`m.${key}`), direction);
  return query.orderBy("m.id").offset(offset).limit(limit).execute();
}

/**
 * The bucket keys of these customers in the organization: each customer id with its customer's
 * external id, each external id with the id of the customer holding it (the hosted service expands each
 * filter to both identifiers).
 */
export async function customerKeysOf(
  db: Executor,
  organizationId: string,
  customerIds: readonly string[],
  externalIds: readonly string[],
): Promise<string[]> {
  const keys = new Set([...customerIds.map((id) => `c:${id}`), ...externalIds.map((id) => `e:${id}`)]);
  if (customerIds.length > 0 || externalIds.length > 0) {
    for (const row of await liveCustomerIdentities(db, organizationId, customerIds, externalIds)) {
      keys.add(`c:${row.id}`);
      if (row.external_id !== null) keys.add(`e:${row.external_id}`);
    }
  }
  return [...keys];
}

/** Meters by id (customer meters show theirs). */
export const metersByIds = (db: Executor, ids: readonly string[]) =>
  ids.length === 0 ? Promise.resolve([]) : db.selectFrom("meters").selectAll().where("id", "in", ids).execute();

/** A sub-select of meters (`m`), for a reader to join, filter and order by. */
export const selectMeters = (db: SubqueryScope) => db.selectFrom("meters as m").selectAll("m");
