import type { Insertable } from "kysely";
import type { Executor } from "../../db/database.ts";
import type { BenefitsTable, ProductMediasTable, ProductPricesTable, ProductsTable } from "./products.table.ts";

export const insertProduct = (db: Executor, values: Insertable<ProductsTable>) =>
  db.insertInto("products").values(values).returningAll().executeTakeFirstOrThrow();

export const insertPrices = (db: Executor, values: Insertable<ProductPricesTable>[]) =>
  values.length ? db.insertInto("product_prices").values(values).returningAll().execute() : Promise.resolve([]);

export const insertBenefit = (db: Executor, values: Insertable<BenefitsTable>) =>
  db.insertInto("benefits").values(values).returningAll().executeTakeFirstOrThrow();

export const insertMedia = (db: Executor, values: Insertable<ProductMediasTable>) =>
  db.insertInto("product_medias").values(values).returningAll().executeTakeFirstOrThrow();

export const attachBenefits = (db: Executor, organizationId: string, productId: string, benefitIds: readonly string[]) =>
  benefitIds.length
    ? db
        .insertInto("product_benefits")
        .values(benefitIds.map((benefit_id, position) => ({ organization_id: organizationId, product_id: productId, benefit_id, position })))
        .execute()
    : Promise.resolve([]);

/** Which of these IDs are products of the organization. */
export const existingProductIds = async (db: Executor, organizationId: string, ids: readonly string[]): Promise<Set<string>> => {
  if (ids.length === 0) return new Set();
  const rows = await db.selectFrom("products").select("id").where("organization_id", "=", organizationId).where("id", "in", ids).execute();
  return new Set(rows.map((row) => row.id));
};
