import { expressionBuilder, sql, type Expression, type Insertable, type Updateable } from "kysely";
import { jsonArrayFrom, jsonObjectFrom } from "kysely/helpers/postgres";
import type { Database, Executor, SubqueryScope } from "../../db/database.ts";
import type { OrganizationScope } from "../../http/auth.ts";
import { containsPattern, type SortCriterion } from "../../schema/pagination.ts";
import { selectProducts } from "../products/products.steps.ts";
import type { DiscountWithProducts } from "./discounts.mapper.ts";
import type { DiscountSortKeys } from "./discounts.schemas.ts";
import type { DiscountsTable } from "./discounts.table.ts";
import { countRows } from "../../db/count-rows.ts";

export const insertDiscount = (db: Executor, values: Insertable<DiscountsTable>) =>
  db.insertInto("discounts").values(values).returningAll().executeTakeFirstOrThrow();

export const restrictDiscountToProducts = async (
  db: Executor,
  organizationId: string,
  discountId: string,
  productIds: readonly string[],
) => {
  if (productIds.length === 0) return;
  await db
    .insertInto("discount_products")
    .values(productIds.map((product_id) => ({ organization_id: organizationId, discount_id: discountId, product_id })))
    .execute();
};

/**
 * The live discount locked for a change. `NO KEY UPDATE`: it waits for a redemption in flight (an
 * update of the row) and makes the next one wait, so "already redeemed" is read as it stands.
 */
export const findDiscountForUpdate = (db: Executor, id: string, allowed: OrganizationScope) => {
  let query = db.selectFrom("discounts").selectAll().where("id", "=", id).where("deleted_at", "is", null);
  if (allowed !== null) query = query.where("organization_id", "in", allowed);
  return query.forNoKeyUpdate().executeTakeFirst();
};

export const updateDiscount = (db: Executor, id: string, values: Updateable<DiscountsTable>) =>
  db.updateTable("discounts").set(values).where("id", "=", id).execute();

/** Lifts the discount's product restriction (before a new list replaces it). */
export const unrestrictDiscount = (db: Executor, discountId: string) =>
  db.deleteFrom("discount_products").where("discount_id", "=", discountId).execute();

/** A live discount of the organization with this code, compared case-insensitively. */
export const findDiscountByCode = (db: Executor, organizationId: string, code: string) =>
  db
    .selectFrom("discounts")
    .select("id")
    .where("organization_id", "=", organizationId)
    .where(sql<string>`lower(code)`, "=", code.toLowerCase())
    .where("deleted_at", "is", null)
    .executeTakeFirst();

export interface DiscountFilters {
  organizationIds: readonly string[] | null;
  query?: string;
}

const filtered = (db: Executor, allowed: OrganizationScope, filters: DiscountFilters) => {
  let query = db.selectFrom("discounts as d").where("d.deleted_at", "is", null);
  if (allowed !== null) query = query.where("d.organization_id", "in", allowed);
  if (filters.organizationIds !== null) query = query.where("d.organization_id", "in", filters.organizationIds);
  if (filters.query !== undefined) {
    const pattern = containsPattern(filters.query);
    query = query.where((eb) => eb.or([eb("d.name", "ilike", pattern), eb("d.code", "ilike", pattern)]));
  }
  return query;
};

const withProducts = (db: Executor, allowed: OrganizationScope, filters: DiscountFilters) =>
  filtered(db, allowed, filters)
    .selectAll("d")
    .select((eb) =>
      jsonArrayFrom(
        selectProducts(db)
          .innerJoin("discount_products as dp", "dp.product_id", "p.id")
          .where("dp.discount_id", "=", eb.ref("d.id"))
          .orderBy("p.created_at")
          .orderBy("p.id"),
      ).as("products"),
    );

export const findDiscount = async (db: Executor, id: string, allowed: OrganizationScope): Promise<DiscountWithProducts | undefined> => {
  const row = await withProducts(db, allowed, { organizationIds: null }).where("d.id", "=", id).executeTakeFirst();
  // JSON aggregation returns the products' timestamps as text; the Jsonified type says so.
  return row;
};

export const countDiscounts = (db: Executor, allowed: OrganizationScope, filters: DiscountFilters): Promise<number> =>
  countRows(filtered(db, allowed, filters));

export const listDiscounts = async (
  db: Executor,
  allowed: OrganizationScope,
  filters: DiscountFilters,
  sorting: SortCriterion<(typeof DiscountSortKeys)[number]>[],
  offset: number,
  limit: number,
): Promise<DiscountWithProducts[]> => {
  let query = withProducts(db, allowed, filters);
  for (const { key, direction } of sorting) query = query.orderBy(sql.ref(`d.${key}`), direction);
  return await query.orderBy("d.id").offset(offset).limit(limit).execute();
};

// What orders and subscriptions read of their discounts: beside their statements, and inside them
// as expressions over the caller's `discountId` column.

/** A discount, whatever its state now (whether it still applies is the caller's rule). */
export const findDiscountById = (db: Executor, id: string) =>
  db.selectFrom("discounts").selectAll().where("id", "=", id).executeTakeFirst();

/** The discount's name, a sort key of the caller's rows (null without one). */
export const discountNameOf = (discountId: Expression<string | null>) =>
  sql<string | null>`(SELECT d.name FROM discounts d WHERE d.id = ${discountId})`;

/** The discount row, a JSON column of the caller's statement. */
export const discountJson = (discountId: Expression<string | null>) =>
  jsonObjectFrom(expressionBuilder<Database>().selectFrom("discounts as d").selectAll("d").where("d.id", "=", discountId));

/** The discounts' names, a table to join under `alias`. */
export const discountNames = <A extends string>(alias: A) =>
  expressionBuilder<Database>().selectFrom("discounts").select(["id", "name"]).as(alias);

// Discounts as other modules embed them, each in one statement of the reader's.

/** A sub-select of discounts (`d`, every column) for a reader to narrow to the discount its row names. */
export const selectDiscounts = (db: SubqueryScope) => db.selectFrom("discounts as d").selectAll("d");
