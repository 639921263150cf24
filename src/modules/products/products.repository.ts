import { expressionBuilder, sql, type Expression, type Insertable, type SqlBool, type Updateable } from "kysely";
import { jsonObjectFrom } from "kysely/helpers/postgres";
import type { Database, Executor } from "../../db/database.ts";
import type { OrganizationScope } from "../../http/auth.ts";
import type { ProductMediasTable, ProductPricesTable, ProductsTable } from "./products.table.ts";

export const insertProduct = (db: Executor, values: Insertable<ProductsTable>) =>
  db.insertInto("products").values(values).returningAll().executeTakeFirstOrThrow();

export const insertPrices = (db: Executor, values: Insertable<ProductPricesTable>[]) =>
  values.length ? db.insertInto("product_prices").values(values).returningAll().execute() : Promise.resolve([]);

export const insertMedia = (db: Executor, values: Insertable<ProductMediasTable>) =>
  db.insertInto("product_medias").values(values).returningAll().executeTakeFirstOrThrow();

export const attachBenefits = (db: Executor, organizationId: string, productId: string, benefitIds: readonly string[]) =>
  benefitIds.length
    ? db
        .insertInto("product_benefits")
        .values(
          benefitIds.map((benefit_id, position) => ({ organization_id: organizationId, product_id: productId, benefit_id, position })),
        )
        .execute()
    : Promise.resolve([]);

/** Which of these IDs are products of the organization. */
export const existingProductIds = async (db: Executor, organizationId: string, ids: readonly string[]): Promise<Set<string>> => {
  if (ids.length === 0) return new Set();
  const rows = await db.selectFrom("products").select("id").where("organization_id", "=", organizationId).where("id", "in", ids).execute();
  return new Set(rows.map((row) => row.id));
};

export const findProductForUpdate = (db: Executor, id: string, allowed: OrganizationScope) => {
  let query = db.selectFrom("products").selectAll().where("id", "=", id);
  if (allowed !== null) query = query.where("organization_id", "in", allowed);
  return query.forUpdate().executeTakeFirst();
};

export const updateProduct = (db: Executor, id: string, values: Updateable<ProductsTable>) =>
  db.updateTable("products").set(values).where("id", "=", id).execute();

export const livePrices = (db: Executor, productId: string) =>
  db.selectFrom("product_prices").selectAll().where("product_id", "=", productId).where("is_archived", "=", false).execute();

/** Archives the product's live prices not kept, and moves the kept ones to their new positions. */
export async function keepPrices(
  db: Executor,
  productId: string,
  kept: readonly { id: string; position: number }[],
  now: Date,
): Promise<void> {
  let archive = db
    .updateTable("product_prices")
    .set({ is_archived: true, modified_at: now })
    .where("product_id", "=", productId)
    .where("is_archived", "=", false);
  if (kept.length)
    archive = archive.where(
      "id",
      "not in",
      kept.map((k) => k.id),
    );
  await archive.execute();
  for (const { id, position } of kept) await db.updateTable("product_prices").set({ position }).where("id", "=", id).execute();
}

/** The ids the product's medias are known by (their files'). */
export const productMediaIds = async (db: Executor, productId: string): Promise<Set<string>> =>
  new Set(
    (
      await db
        .selectFrom("product_medias")
        .select((eb) => eb.fn.coalesce("file_id", "id").as("id"))
        .where("product_id", "=", productId)
        .execute()
    ).map((row) => row.id),
  );

/**
 * The product's medias become exactly `ids`, in this order: the others are removed, and the files
 * not attached yet (in `files`) are attached.
 */
export async function keepMedias(
  db: Executor,
  product: { id: string; organization_id: string },
  ids: readonly string[],
  files: readonly Omit<Insertable<ProductMediasTable>, "organization_id" | "product_id" | "position">[],
): Promise<void> {
  const key = sql<string>`coalesce(file_id, id)`;
  let removal = db.deleteFrom("product_medias").where("product_id", "=", product.id);
  if (ids.length) removal = removal.where(key, "not in", ids);
  await removal.execute();
  if (files.length)
    await db
      .insertInto("product_medias")
      .values(files.map((file) => ({ ...file, organization_id: product.organization_id, product_id: product.id })))
      .onConflict((oc) => oc.columns(["product_id", "file_id"]).doNothing())
      .execute();
  for (const [position, id] of ids.entries())
    await db.updateTable("product_medias").set({ position }).where("product_id", "=", product.id).where(key, "=", id).execute();
}

export const detachAllBenefits = (db: Executor, productId: string) =>
  db.deleteFrom("product_benefits").where("product_id", "=", productId).execute();

/** Takes a (deleted) benefit off every product that carries it. */
export const detachBenefitFromProducts = (db: Executor, benefitId: string) =>
  db.deleteFrom("product_benefits").where("benefit_id", "=", benefitId).execute();

/** The organization a product belongs to, or undefined when there is no such product. */
export async function findProductOrganization(db: Executor, productId: string): Promise<string | undefined> {
  const row = await db.selectFrom("products").select("organization_id").where("id", "=", productId).executeTakeFirst();
  return row?.organization_id;
}

// What orders and subscriptions read of their products and prices: beside their statements, and
// inside them as expressions over the caller's `productId` column or tables to join.

/** What an order of the product needs: its name and whether tax applies. */
export const findProductBilling = (db: Executor, productId: string) =>
  db.selectFrom("products").select(["name", "is_tax_applicable"]).where("id", "=", productId).executeTakeFirstOrThrow();

/** The product's name, a sort key of the caller's rows (null without one). */
export const productNameOf = (productId: Expression<string | null>) =>
  sql<string | null>`(SELECT p.name FROM products p WHERE p.id = ${productId})`;

/** Whether the product's name matches `pattern` (ILIKE). */
export const productNameMatches = (productId: Expression<string | null>, pattern: string): Expression<SqlBool> => {
  const eb = expressionBuilder<Database>();
  return eb.exists(eb.selectFrom("products as p").select("p.id").where("p.id", "=", productId).where("p.name", "ilike", pattern));
};

/** Whether the product bills recurring (or, with `recurring` false, once). */
export const productIsRecurring = (productId: Expression<string | null>, recurring: boolean): Expression<SqlBool> => {
  const eb = expressionBuilder<Database>();
  return eb.exists(
    eb
      .selectFrom("products as p")
      .select("p.id")
      .where("p.id", "=", productId)
      .where("p.recurring_interval", recurring ? "is not" : "is", null),
  );
};

/** The product row, a JSON column of the caller's statement. */
export const productJson = (productId: Expression<string | null>) =>
  jsonObjectFrom(expressionBuilder<Database>().selectFrom("products as p").selectAll("p").where("p.id", "=", productId));

/** The products' names, a table to join under `alias`. */
export const productNames = <A extends string>(alias: A) =>
  expressionBuilder<Database>().selectFrom("products").select(["id", "name"]).as(alias);

/** The prices, a table to join under `alias`. */
export const productPriceRows = <A extends string>(alias: A) =>
  expressionBuilder<Database>().selectFrom("product_prices").selectAll().as(alias);

// What checkout links check of the products they offer.

/** Which of these IDs are products of the organization a link may offer (not archived). */
export async function offerableProductIds(db: Executor, organizationId: string, ids: readonly string[]): Promise<Set<string>> {
  const rows = await db
    .selectFrom("products")
    .select("id")
    .where("organization_id", "=", organizationId)
    .where("id", "in", ids)
    .where("is_archived", "=", false)
    .execute();
  return new Set(rows.map((row) => row.id));
}

/** The product and organization of a live catalog price, within the caller's organizations. */
export function findPriceProduct(db: Executor, priceId: string, allowed: OrganizationScope) {
  let query = db
    .selectFrom("product_prices")
    .select(["product_id", "organization_id"])
    .where("id", "=", priceId)
    .where("is_archived", "=", false);
  if (allowed !== null) query = query.where("organization_id", "in", allowed);
  return query.executeTakeFirst();
}

// What benefit grants read of their products' benefits, inside their own statements (benefits is
// below products: services.ts hands these to it, `benefits/benefit-dependent-reads.ts`).

/** The place of the caller's `benefitId` on the product of its `productId` (null when the product does not carry it). */
export const benefitPositionOnProduct = (benefitId: Expression<string>, productId: Expression<string | null>) =>
  sql<number | null>`(SELECT pb.position FROM product_benefits pb WHERE pb.benefit_id = ${benefitId} AND pb.product_id = ${productId})`;

/** The benefits the product of the caller's `productId` carries, a subquery. */
export const benefitIdsOfProduct = (productId: Expression<string | null>) =>
  expressionBuilder<Database>()
    .selectFrom("product_benefits as pb")
    .select("pb.benefit_id")
    .where("pb.product_id", "=", productId)
    .$asScalar();
