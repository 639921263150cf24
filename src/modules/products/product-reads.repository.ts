import { expressionBuilder, sql, type Expression, type ExpressionBuilder } from "kysely";
import { jsonArrayFrom, jsonObjectFrom } from "kysely/helpers/postgres";
import type { Database, Executor, SubqueryScope } from "../../db/database.ts";
import type { OrganizationScope } from "../../http/auth.ts";
import { metadataMatches } from "../../db/list-filters.ts";
import { containsPattern, type MetadataFilter, type SortCriterion } from "../../schema/pagination.ts";
import { selectLiveBenefits } from "../benefits/benefits.steps.ts";
import { attachedCustomFields } from "../custom-fields/custom-fields.steps.ts";
import { deletedFileIds } from "../files/files.steps.ts";
import type { ProductWithRelations } from "./products.mapper.ts";
import type { ProductSortKeys } from "./product-inputs.schemas.ts";
import type { ProductsTable } from "./products.table.ts";
import type { ProductVisibility } from "./products.schemas.ts";
import { countRows } from "../../db/count-rows.ts";

type ProductScope = ExpressionBuilder<Database & { p: ProductsTable }, "p">;

/** A product's live prices, live benefits, medias and attached custom fields, each in position order, as JSON arrays. */
export const productRelations = (eb: ProductScope) => [
  jsonArrayFrom(
    eb
      .selectFrom("product_prices as pp")
      .whereRef("pp.product_id", "=", "p.id")
      .where("pp.is_archived", "=", false)
      .orderBy("pp.position")
      .orderBy("pp.created_at")
      .selectAll("pp"),
  ).as("prices"),
  jsonArrayFrom(
    selectLiveBenefits(eb)
      .innerJoin("product_benefits as pb", "pb.benefit_id", "b.id")
      .where("pb.product_id", "=", eb.ref("p.id"))
      .orderBy("pb.position"),
  ).as("benefits"),
  // A media is known by its file's id; a file deleted since is no longer shown.
  jsonArrayFrom(
    eb
      .selectFrom("product_medias as pm")
      .whereRef("pm.product_id", "=", "p.id")
      .where((media) => media.or([media("pm.file_id", "is", null), media("pm.file_id", "not in", deletedFileIds(eb))]))
      .orderBy("pm.position")
      .selectAll("pm")
      .select((media) => media.fn.coalesce("pm.file_id", "pm.id").as("id")),
  ).as("medias"),
  attachedCustomFields(eb, eb.ref("p.id")).as("attached_custom_fields"),
];

export interface ProductFilters {
  ids: readonly string[] | null;
  organizationIds: readonly string[] | null;
  query?: string;
  isArchived?: boolean;
  isRecurring?: boolean;
  benefitIds: readonly string[] | null;
  visibility: readonly ProductVisibility[] | null;
  metadata?: MetadataFilter;
}

const filtered = (db: Executor, allowed: OrganizationScope, filters: ProductFilters) => {
  let query = db.selectFrom("products as p");
  if (allowed !== null) query = query.where("p.organization_id", "in", allowed);
  if (filters.ids !== null) query = query.where("p.id", "in", filters.ids);
  if (filters.organizationIds !== null) query = query.where("p.organization_id", "in", filters.organizationIds);
  if (filters.query !== undefined) query = query.where("p.name", "ilike", containsPattern(filters.query));
  if (filters.isArchived !== undefined) query = query.where("p.is_archived", "=", filters.isArchived);
  if (filters.isRecurring !== undefined) query = query.where("p.recurring_interval", filters.isRecurring ? "is not" : "is", null);
  if (filters.visibility !== null) query = query.where("p.visibility", "in", filters.visibility);
  const metadata = filters.metadata;
  if (metadata) query = query.where((eb) => metadataMatches(eb, "p.metadata", metadata));
  if (filters.benefitIds !== null) {
    const benefitIds = filters.benefitIds;
    query = query.where((eb) =>
      eb.exists(
        eb
          .selectFrom("product_benefits as fb")
          .whereRef("fb.product_id", "=", "p.id")
          .where("fb.benefit_id", "in", benefitIds)
          .select("fb.benefit_id"),
      ),
    );
  }
  return query;
};

// Products sort by their first live price: its kind (free, custom, fixed, seats, metered) or amount.
const SORT_EXPRESSIONS: Record<(typeof ProductSortKeys)[number], ReturnType<typeof sql>> = {
  created_at: sql`p.created_at`,
  name: sql`p.name`,
  price_amount_type: sql`(SELECT min(array_position(ARRAY['free','custom','fixed','seat_based','metered_unit'], amount_type)) FROM product_prices WHERE product_id = p.id AND NOT is_archived)`,
  price_amount: sql`(SELECT min(coalesce(price_amount, minimum_amount, 0)) FROM product_prices WHERE product_id = p.id AND NOT is_archived)`,
};

export const findProductWithRelations = async (
  db: Executor,
  id: string,
  allowed: OrganizationScope,
): Promise<ProductWithRelations | undefined> => {
  const row = await filtered(db, allowed, { ids: [id], organizationIds: null, benefitIds: null, visibility: null })
    .selectAll("p")
    .select(productRelations)
    .executeTakeFirst();
  // JSON aggregation returns the relations' timestamps as text; the Jsonified type says so.
  return row;
};

export const countProducts = (db: Executor, allowed: OrganizationScope, filters: ProductFilters): Promise<number> =>
  countRows(filtered(db, allowed, filters));

export const listProducts = async (
  db: Executor,
  allowed: OrganizationScope,
  filters: ProductFilters,
  sorting: SortCriterion<(typeof ProductSortKeys)[number]>[],
  offset: number,
  limit: number,
): Promise<ProductWithRelations[]> => {
  let query = filtered(db, allowed, filters).selectAll("p").select(productRelations);
  for (const { key, direction } of sorting) query = query.orderBy(SORT_EXPRESSIONS[key], direction);
  return await query.orderBy("p.id").offset(offset).limit(limit).execute();
};

// What subscriptions read of their product, inside their own statement.

/** The product with its relations (`productRelations`), a JSON column of the caller's statement. */
export const productWithRelationsJson = (productId: Expression<string>) =>
  jsonObjectFrom(
    expressionBuilder<Database>().selectFrom("products as p").selectAll("p").select(productRelations).where("p.id", "=", productId),
  );

// Products as other modules embed them, each in one statement of the reader's.

/**
 * A sub-select of products (`p`, every column) for a reader to narrow and order, joining its own
 * table of product ids (a discount's, a session's, a link's): one statement with the reader's.
 */
export const selectProducts = (db: SubqueryScope) => db.selectFrom("products as p").selectAll("p");

/** A sub-select of the product's prices (`p`) on the meter, for a reader to test or pick columns. */
export const pricesOnMeter = (eb: SubqueryScope, productId: Expression<string>, meterId: Expression<string>) =>
  eb.selectFrom("product_prices as p").where("p.product_id", "=", productId).where("p.meter_id", "=", meterId);
