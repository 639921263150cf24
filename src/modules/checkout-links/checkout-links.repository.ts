import { sql, type Insertable, type Updateable } from "kysely";
import { jsonArrayFrom, jsonObjectFrom } from "kysely/helpers/postgres";
import { countRows } from "../../db/count-rows.ts";
import type { Executor } from "../../db/database.ts";
import type { OrganizationScope } from "../../http/auth.ts";
import type { SortCriterion } from "../../schema/pagination.ts";
import type { DiscountJson } from "../discounts/discounts.mapper.ts";
import type { ProductWithRelationsJson } from "../products/products.mapper.ts";
import { selectDiscounts } from "../discounts/discounts.steps.ts";
import { productRelations, selectProducts } from "../products/products.steps.ts";
import type { CheckoutLinkSortKeys } from "./checkout-links.schemas.ts";
import type { CheckoutLinkRow, CheckoutLinksTable } from "./checkout-links.table.ts";

export type CheckoutLinkWithRelations = CheckoutLinkRow & { products: ProductWithRelationsJson[]; discount: DiscountJson | null };

export interface CheckoutLinkFilters {
  organizationIds: readonly string[] | null;
  productIds: readonly string[] | null;
}

const live = (db: Executor, allowed: OrganizationScope) => {
  let query = db.selectFrom("checkout_links as cl").where("cl.deleted_at", "is", null);
  if (allowed !== null) query = query.where("cl.organization_id", "in", allowed);
  return query;
};

/** Links with their products (each with its live relations) in display order, and their discount. */
const withRelations = (db: Executor, links: ReturnType<typeof live>) =>
  links.selectAll("cl").select((eb) => [
    jsonArrayFrom(
      selectProducts(db)
        .innerJoin("checkout_link_products as clp", "clp.product_id", "p.id")
        .where("clp.checkout_link_id", "=", eb.ref("cl.id"))
        .orderBy("clp.position")
        .select((inner) => productRelations(inner)),
    ).as("products"),
    jsonObjectFrom(selectDiscounts(db).where("d.id", "=", eb.ref("cl.discount_id"))).as("discount"),
  ]);

export const findCheckoutLink = async (
  db: Executor,
  where: { id: string } | { clientSecret: string },
  allowed: OrganizationScope,
): Promise<CheckoutLinkWithRelations | undefined> => {
  const query = withRelations(db, live(db, allowed));
  // JSON aggregation returns the relations' timestamps as text; the Jsonified types say so.
  return "id" in where
    ? query.where("cl.id", "=", where.id).executeTakeFirst()
    : query.where("cl.client_secret", "=", where.clientSecret).executeTakeFirst();
};

export const findCheckoutLinkForUpdate = (db: Executor, id: string, allowed: OrganizationScope) =>
  live(db, allowed).selectAll("cl").where("cl.id", "=", id).forUpdate().executeTakeFirst();

export const insertCheckoutLink = (db: Executor, values: Insertable<CheckoutLinksTable>) =>
  db.insertInto("checkout_links").values(values).returningAll().executeTakeFirstOrThrow();

export const updateCheckoutLink = (db: Executor, id: string, values: Updateable<CheckoutLinksTable>) =>
  db.updateTable("checkout_links").set(values).where("id", "=", id).execute();

/** Replaces the products a link offers, in this order. */
export async function setCheckoutLinkProducts(
  db: Executor,
  organizationId: string,
  linkId: string,
  productIds: readonly string[],
): Promise<void> {
  await db.deleteFrom("checkout_link_products").where("checkout_link_id", "=", linkId).execute();
  await db
    .insertInto("checkout_link_products")
    .values(productIds.map((product_id, position) => ({ organization_id: organizationId, checkout_link_id: linkId, product_id, position })))
    .execute();
}

const filtered = (db: Executor, allowed: OrganizationScope, filters: CheckoutLinkFilters) => {
  let query = live(db, allowed);
  if (filters.organizationIds !== null) query = query.where("cl.organization_id", "in", filters.organizationIds);
  const productIds = filters.productIds;
  if (productIds !== null) {
    query = query.where((eb) =>
      eb.exists(
        eb
          .selectFrom("checkout_link_products as fp")
          .whereRef("fp.checkout_link_id", "=", "cl.id")
          .where("fp.product_id", "in", productIds)
          .select("fp.product_id"),
      ),
    );
  }
  return query;
};

export const countCheckoutLinks = (db: Executor, allowed: OrganizationScope, filters: CheckoutLinkFilters): Promise<number> =>
  countRows(filtered(db, allowed, filters));

export async function listCheckoutLinks(
  db: Executor,
  allowed: OrganizationScope,
  filters: CheckoutLinkFilters,
  sorting: SortCriterion<(typeof CheckoutLinkSortKeys)[number]>[],
  offset: number,
  limit: number,
): Promise<CheckoutLinkWithRelations[]> {
  let query = withRelations(db, filtered(db, allowed, filters));
  for (const { key, direction } of sorting) query = query.orderBy(sql.ref(`cl.${key}`), direction);
  return await query.orderBy("cl.id").offset(offset).limit(limit).execute();
}
