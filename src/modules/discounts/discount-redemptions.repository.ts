import { sql } from "kysely";
import type { Executor } from "../../db/database.ts";
import type { DiscountRow } from "./discounts.table.ts";

export type DiscountWithProducts = DiscountRow & { product_ids: string[] };

/** A live (not deleted) discount of the organization by id or by code (codes match case-insensitively). */
export const findLiveDiscount = (
  db: Executor,
  organizationId: string,
  where: { id: string } | { code: string },
): Promise<DiscountWithProducts | undefined> => findDiscountWithProducts(db, organizationId, where, { live: true });

/**
 * The discount a checkout session or a subscription already holds, deleted or not: a deletion stops
 * new uses only, so what holds it is still discounted (as the hosted service's renewals do).
 */
export const findHeldDiscount = (db: Executor, organizationId: string, id: string): Promise<DiscountWithProducts | undefined> =>
  findDiscountWithProducts(db, organizationId, { id }, { live: false });

async function findDiscountWithProducts(
  db: Executor,
  organizationId: string,
  where: { id: string } | { code: string },
  options: { live: boolean },
): Promise<DiscountWithProducts | undefined> {
  let query = db
    .selectFrom("discounts as d")
    .selectAll("d")
    .select((eb) =>
      eb
        .fn<string[]>("coalesce", [
          eb
            .selectFrom("discount_products as dp")
            .whereRef("dp.discount_id", "=", "d.id")
            .select(sql<string[]>`array_agg(dp.product_id)`.as("ids")),
          sql<string[]>`'{}'::uuid[]`,
        ])
        .as("product_ids"),
    )
    .where("d.organization_id", "=", organizationId);
  if (options.live) query = query.where("d.deleted_at", "is", null);
  query = "id" in where ? query.where("d.id", "=", where.id) : query.where(sql`lower(d.code)`, "=", where.code.toLowerCase());
  return query.executeTakeFirst();
}

/**
 * Takes one redemption if any is left. A single conditional UPDATE: concurrent confirms queue on
 * the row lock and each sees the count the previous one committed, so the limit cannot be passed.
 */
export const redeemDiscount = async (db: Executor, discountId: string): Promise<boolean> =>
  (await db
    .updateTable("discounts")
    .set((eb) => ({ redemptions_count: eb("redemptions_count", "+", 1) }))
    .where("id", "=", discountId)
    .where((eb) => eb.or([eb("max_redemptions", "is", null), eb("redemptions_count", "<", eb.ref("max_redemptions"))]))
    .returning("id")
    .executeTakeFirst()) !== undefined;

/** Gives back a redemption taken by a confirmation whose payment then failed. */
export const releaseDiscount = (db: Executor, discountId: string) =>
  db
    .updateTable("discounts")
    .set((eb) => ({ redemptions_count: eb("redemptions_count", "-", 1) }))
    .where("id", "=", discountId)
    .where("redemptions_count", ">", 0)
    .execute();
