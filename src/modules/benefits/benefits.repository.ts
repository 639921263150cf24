import { sql, type Insertable } from "kysely";
import type { Executor, SubqueryScope } from "../../db/database.ts";
import type { OrganizationScope } from "../../http/auth.ts";
import type { BenefitGrantsTable, BenefitsTable } from "./benefits.table.ts";
import { benefitDependentReads } from "./benefit-dependent-reads.ts";

export const insertBenefit = (db: Executor, values: Insertable<BenefitsTable>) =>
  db.insertInto("benefits").values(values).returningAll().executeTakeFirstOrThrow();

export const findBenefit = (db: Executor, id: string, allowed: OrganizationScope) => {
  let query = db.selectFrom("benefits").selectAll().where("id", "=", id).where("is_deleted", "=", false);
  if (allowed !== null) query = query.where("organization_id", "in", allowed);
  return query.executeTakeFirst();
};

/** Which of these IDs are live benefits of the organization. */
export const existingBenefitIds = async (db: Executor, organizationId: string, ids: readonly string[]): Promise<Set<string>> => {
  if (ids.length === 0) return new Set();
  const rows = await db
    .selectFrom("benefits")
    .select("id")
    .where("organization_id", "=", organizationId)
    .where("is_deleted", "=", false)
    .where("id", "in", ids)
    .execute();
  return new Set(rows.map((row) => row.id));
};

/** Whether this order (or, without one, this subscription) already granted this benefit: a replay grants nothing twice. */
export async function hasGrant(
  db: Executor,
  source: { orderId: string | null; subscriptionId: string | null },
  benefitId: string,
): Promise<boolean> {
  const [column, id] =
    source.orderId !== null ? (["order_id", source.orderId] as const) : (["subscription_id", source.subscriptionId] as const);
  if (id === null) return false;
  const row = await db
    .selectFrom("benefit_grants")
    .select("id")
    .where(column, "=", id)
    .where("benefit_id", "=", benefitId)
    .executeTakeFirst();
  return row !== undefined;
}

export const insertBenefitGrant = (db: Executor, values: Insertable<BenefitGrantsTable>) =>
  db.insertInto("benefit_grants").values(values).returning("id").executeTakeFirstOrThrow();

/** What a grant change returns: which grants, and the license keys they issued. */
const CHANGED = ["id", "properties"] as const;

/** The benefits the subscription's product carries now. */
const productBenefitIds = (subscriptionId: string) => {
  const reads = benefitDependentReads();
  return reads.benefitIdsOfProduct(reads.productIdOfSubscription(sql.val(subscriptionId)));
};

/**
 * Revokes (`granted` false) or restores (`granted` true) every grant of a subscription that is in
 * the other state; returns the changed grants' customer and properties (the license keys they issued).
 * Only the benefits its product carries now are restored: a product change leaves the old ones revoked.
 */
export const setSubscriptionGrants = (db: Executor, subscriptionId: string, granted: boolean, now: Date) => {
  let query = db
    .updateTable("benefit_grants")
    .set(granted ? { granted_at: now, revoked_at: null, modified_at: now } : { granted_at: null, revoked_at: now, modified_at: now })
    .where("subscription_id", "=", subscriptionId)
    .where("granted_at", granted ? "is" : "is not", null);
  if (granted) query = query.where("benefit_id", "in", productBenefitIds(subscriptionId));
  return query.returning(CHANGED).execute();
};

/** Revokes the subscription's grants of benefits its product no longer carries (after a product change). */
export const revokeGrantsOutsideProduct = (db: Executor, subscriptionId: string, now: Date) =>
  db
    .updateTable("benefit_grants")
    .set({ granted_at: null, revoked_at: now, modified_at: now })
    .where("subscription_id", "=", subscriptionId)
    .where("granted_at", "is not", null)
    .where("benefit_id", "not in", productBenefitIds(subscriptionId))
    .returning(CHANGED)
    .execute();

/** Revokes every grant a one-time order made that is still granted; returns the changed grants and their properties. */
export const revokeOrderGrants = (db: Executor, orderId: string, now: Date) =>
  db
    .updateTable("benefit_grants")
    .set({ granted_at: null, revoked_at: now, modified_at: now })
    .where("order_id", "=", orderId)
    .where("granted_at", "is not", null)
    .returning(CHANGED)
    .execute();

/** Revokes every grant of a customer still granted (the customer's deletion); returns the changed grants and their properties. */
export const revokeCustomerGrants = (db: Executor, customerId: string, now: Date) =>
  db
    .updateTable("benefit_grants")
    .set({ granted_at: null, revoked_at: now, modified_at: now })
    .where("customer_id", "=", customerId)
    .where("granted_at", "is not", null)
    .returning(CHANGED)
    .execute();

/** The subscription's grants that are granted now, oldest first. */
export const grantedSubscriptionGrantIds = async (db: Executor, subscriptionId: string): Promise<string[]> => {
  const rows = await db
    .selectFrom("benefit_grants")
    .select("id")
    .where("subscription_id", "=", subscriptionId)
    .where("granted_at", "is not", null)
    .orderBy("created_at")
    .orderBy("id")
    .execute();
  return rows.map((row) => row.id);
};

// Benefits as other modules embed them in their own statements.

/** A sub-select of the live (not deleted) benefits (`b`, every column) for a reader to narrow by its own table of benefit ids. */
export const selectLiveBenefits = (eb: SubqueryScope) => eb.selectFrom("benefits as b").selectAll("b").where("b.is_deleted", "=", false);
