import { jsonArrayFrom, jsonObjectFrom } from "kysely/helpers/postgres";
import type { Executor } from "../../db/database.ts";
import type { OrganizationScope } from "../../kit/auth.ts";
import type { DiscountJson } from "../discounts/discounts.mapper.ts";
import type { ProductWithRelationsJson } from "../products/products.mapper.ts";
import type { Insertable } from "kysely";
import type { CheckoutRow, CheckoutsTable } from "./checkouts.table.ts";

export type CheckoutWithRelations = CheckoutRow & {
  products: ProductWithRelationsJson[];
  discount: DiscountJson | null;
};

/**
 * A checkout with its products (each with live prices, benefits and medias) and its discount, in
 * one statement: the read path of every checkout response.
 */
export async function findCheckoutWithRelations(
  db: Executor,
  where: { id: string } | { clientSecret: string },
  allowed: OrganizationScope,
): Promise<CheckoutWithRelations | undefined> {
  let query = db
    .selectFrom("checkouts as c")
    .selectAll("c")
    .select((eb) => [
      jsonArrayFrom(
        eb
          .selectFrom("checkout_products as cp")
          .innerJoin("products as p", "p.id", "cp.product_id")
          .whereRef("cp.checkout_id", "=", "c.id")
          .orderBy("cp.position")
          .selectAll("p")
          .select((inner) => [
            jsonArrayFrom(
              inner
                .selectFrom("product_prices as pp")
                .whereRef("pp.product_id", "=", "p.id")
                .where("pp.is_archived", "=", false)
                .orderBy("pp.position")
                .orderBy("pp.created_at")
                .selectAll("pp"),
            ).as("prices"),
            jsonArrayFrom(
              inner
                .selectFrom("product_benefits as pb")
                .innerJoin("benefits as b", "b.id", "pb.benefit_id")
                .whereRef("pb.product_id", "=", "p.id")
                .where("b.is_deleted", "=", false)
                .orderBy("pb.position")
                .selectAll("b"),
            ).as("benefits"),
            jsonArrayFrom(
              inner.selectFrom("product_medias as pm").whereRef("pm.product_id", "=", "p.id").orderBy("pm.position").selectAll("pm"),
            ).as("medias"),
          ]),
      ).as("products"),
      jsonObjectFrom(eb.selectFrom("discounts as d").whereRef("d.id", "=", "c.discount_id").selectAll("d")).as("discount"),
    ]);
  query = "id" in where ? query.where("c.id", "=", where.id) : query.where("c.client_secret", "=", where.clientSecret);
  if (allowed !== null) query = query.where("c.organization_id", "in", allowed);
  const row = await query.executeTakeFirst();
  // JSON aggregation returns timestamps as text; the Jsonified types say so.
  return row as CheckoutWithRelations | undefined;
}

export async function insertCheckout(db: Executor, values: Insertable<CheckoutsTable>, productIds: readonly string[]): Promise<CheckoutRow> {
  const row = await db.insertInto("checkouts").values(values).returningAll().executeTakeFirstOrThrow();
  if (productIds.length) {
    await db
      .insertInto("checkout_products")
      .values(productIds.map((product_id, position) => ({ organization_id: row.organization_id, checkout_id: row.id, product_id, position })))
      .execute();
  }
  return row;
}
