import { sql, type Insertable, type Updateable } from "kysely";
import { countRows } from "../../db/count-rows.ts";
import type { Executor, SubqueryScope } from "../../db/database.ts";
import { metadataMatches, type MetadataFilter } from "../../db/list-filters.ts";
import type { OrganizationScope } from "../../http/auth.ts";
import { containsPattern, given, type SortCriterion } from "../../schema/pagination.ts";
import type { BenefitSortKey } from "./benefit-inputs.schemas.ts";
import type { BenefitType } from "./benefits.schemas.ts";
import type { BenefitGrantsTable, BenefitsTable } from "./benefits.table.ts";
import { benefitDependentReads } from "./benefit-dependent-reads.ts";

export const insertBenefit = (db: Executor, values: Insertable<BenefitsTable>) =>
  db.insertInto("benefits").values(values).returningAll().executeTakeFirstOrThrow();

export const findBenefit = (db: Executor, id: string, allowed: OrganizationScope) => {
  let query = db.selectFrom("benefits").selectAll().where("id", "=", id).where("is_deleted", "=", false);
  if (allowed !== null) query = query.where("organization_id", "in", allowed);
  return query.executeTakeFirst();
};

/**
 * The live benefit locked for a change. `NO KEY UPDATE`: grants being inserted for it (which take a
 * key share through their foreign key) are not held up by a description's edit.
 */
export const findBenefitForUpdate = (db: Executor, id: string, allowed: OrganizationScope) => {
  let query = db.selectFrom("benefits").selectAll().where("id", "=", id).where("is_deleted", "=", false);
  if (allowed !== null) query = query.where("organization_id", "in", allowed);
  return query.forNoKeyUpdate().executeTakeFirst();
};

export const updateBenefit = (db: Executor, id: string, values: Updateable<BenefitsTable>) =>
  db.updateTable("benefits").set(values).where("id", "=", id).returningAll().executeTakeFirstOrThrow();

/** Which benefits a list shows; every filter given narrows it, the values of one filter are OR'd. */
export interface BenefitFilter {
  organizationIds?: readonly string[];
  types?: readonly BenefitType[];
  ids?: readonly string[];
  excludeIds?: readonly string[];
  query?: string;
  metadata?: MetadataFilter;
}

const filteredBenefits = (db: Executor, allowed: OrganizationScope, filter: BenefitFilter) => {
  let query = db.selectFrom("benefits as b").where("b.is_deleted", "=", false);
  if (allowed !== null) query = query.where("b.organization_id", "in", allowed);
  if (given(filter.organizationIds)) query = query.where("b.organization_id", "in", filter.organizationIds);
  if (given(filter.types)) query = query.where("b.type", "in", filter.types);
  if (given(filter.ids)) query = query.where("b.id", "in", filter.ids);
  if (given(filter.excludeIds)) query = query.where("b.id", "not in", filter.excludeIds);
  if (filter.query !== undefined && filter.query !== "") query = query.where("b.description", "ilike", containsPattern(filter.query));
  const metadata = filter.metadata;
  if (metadata) query = query.where((eb) => metadataMatches(eb, "b.metadata", metadata));
  return query;
};

/** `user_order` follows the `id` filter's order when one is given, else the creation order. */
const benefitSortExpression = (key: BenefitSortKey, ids: readonly string[] | undefined) => {
  if (key === "user_order") return given(ids) ? sql`array_position(${sql.val([...ids])}::uuid[], b.id)` : sql.ref("b.created_at");
  return sql.ref(`b.${key}`);
};

export const countBenefits = (db: Executor, allowed: OrganizationScope, filter: BenefitFilter): Promise<number> =>
  countRows(filteredBenefits(db, allowed, filter));

/** One page; the id breaks ties, so pages neither repeat nor skip rows. */
export function pageBenefits(
  db: Executor,
  allowed: OrganizationScope,
  filter: BenefitFilter,
  sorting: readonly SortCriterion<BenefitSortKey>[],
  window: { offset: number; limit: number },
) {
  let query = filteredBenefits(db, allowed, filter).selectAll("b");
  for (const { key, direction } of sorting) query = query.orderBy(benefitSortExpression(key, filter.ids), direction);
  return query.orderBy("b.id").offset(window.offset).limit(window.limit).execute();
}

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

/**
 * Which of these benefits this seat's holder, else this order, else this subscription already has a
 * grant of (granted or not), in one read: a replay grants nothing twice.
 */
export async function benefitsAlreadyGranted(
  db: Executor,
  source: { orderId: string | null; subscriptionId: string | null; seat?: { id: string; memberId: string } },
  benefitIds: readonly string[],
): Promise<Set<string>> {
  if (benefitIds.length === 0) return new Set();
  let query = db.selectFrom("benefit_grants").select("benefit_id").where("benefit_id", "in", benefitIds);
  if (source.seat) query = query.where("seat_id", "=", source.seat.id).where("member_id", "=", source.seat.memberId);
  else if (source.orderId !== null) query = query.where("order_id", "=", source.orderId);
  else if (source.subscriptionId !== null) query = query.where("subscription_id", "=", source.subscriptionId);
  else return new Set();
  return new Set((await query.execute()).map((row) => row.benefit_id));
}

export const insertBenefitGrant = (db: Executor, values: Insertable<BenefitGrantsTable>) =>
  db.insertInto("benefit_grants").values(values).returning("id").executeTakeFirstOrThrow();

/** What a grant change returns: which grants, and the license keys they issued. */
const CHANGED = ["id", "properties"] as const;

/** The benefits the subscription's product carries now for its buyer: none when seat-based. */
const productBenefitIds = (subscriptionId: string) => {
  const reads = benefitDependentReads();
  return reads.benefitIdsOfProduct(reads.buyerProductIdOfSubscription(sql.val(subscriptionId)));
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

/**
 * Revokes the grants a seat's holder still holds, but those of the benefits `kept` (its product's
 * when they changed); returns the changed grants and their properties.
 */
export const revokeSeatGrants = (db: Executor, seatId: string, now: Date, kept: readonly string[] = []) => {
  let query = db
    .updateTable("benefit_grants")
    .set({ granted_at: null, revoked_at: now, modified_at: now })
    .where("seat_id", "=", seatId)
    .where("granted_at", "is not", null);
  if (kept.length > 0) query = query.where("benefit_id", "not in", kept);
  return query.returning(CHANGED).execute();
};

/** Restores the holder's revoked grants of these benefits on the seat (their product carries them again); returns them. */
export const restoreSeatGrants = async (db: Executor, seat: { id: string; memberId: string }, benefitIds: readonly string[], now: Date) =>
  benefitIds.length === 0
    ? []
    : db
        .updateTable("benefit_grants")
        .set({ granted_at: now, revoked_at: null, modified_at: now })
        .where("seat_id", "=", seat.id)
        .where("member_id", "=", seat.memberId)
        .where("granted_at", "is", null)
        .where("benefit_id", "in", benefitIds)
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

/** Revokes every grant of a (deleted) benefit still granted; returns the changed grants and their properties. */
export const revokeBenefitGrants = (db: Executor, benefitId: string, now: Date) =>
  db
    .updateTable("benefit_grants")
    .set({ granted_at: null, revoked_at: now, modified_at: now })
    .where("benefit_id", "=", benefitId)
    .where("granted_at", "is not", null)
    .returning(CHANGED)
    .execute();

/**
 * Revokes (`granted` false) or grants again (`granted` true) the grant that issued a license key, when
 * it is in the other state; returns it. Narrowed by the key's customer and benefit, through their index.
 */
export const setLicenseKeyGrant = (
  db: Executor,
  key: { id: string; organization_id: string; customer_id: string; benefit_id: string },
  granted: boolean,
  now: Date,
) =>
  db
    .updateTable("benefit_grants")
    .set(granted ? { granted_at: now, revoked_at: null, modified_at: now } : { granted_at: null, revoked_at: now, modified_at: now })
    .where("organization_id", "=", key.organization_id)
    .where("customer_id", "=", key.customer_id)
    .where("benefit_id", "=", key.benefit_id)
    .where(sql<string>`properties->>'license_key_id'`, "=", key.id)
    .where("granted_at", granted ? "is" : "is not", null)
    .returning(CHANGED)
    .execute();

/** Marks the granted grant that issued a license key as changed (its activations did); returns it. */
export const touchLicenseKeyGrant = (
  db: Executor,
  key: { id: string; organization_id: string; customer_id: string; benefit_id: string },
  now: Date,
) =>
  db
    .updateTable("benefit_grants")
    .set({ modified_at: now })
    .where("organization_id", "=", key.organization_id)
    .where("customer_id", "=", key.customer_id)
    .where("benefit_id", "=", key.benefit_id)
    .where(sql<string>`properties->>'license_key_id'`, "=", key.id)
    .where("granted_at", "is not", null)
    .returning(CHANGED)
    .execute();

/**
 * Marks the benefit's granted grants as changed (its terms were); returns them, with the subscription
 * that backs each: the buyer's, or the one of the holder's seat.
 */
export const touchGrantedGrantsOfBenefit = (db: Executor, benefitId: string, now: Date) =>
  db
    .updateTable("benefit_grants")
    .set({ modified_at: now })
    .where("benefit_id", "=", benefitId)
    .where("granted_at", "is not", null)
    .returning((eb) => [
      "id",
      "customer_id",
      "properties",
      eb.fn.coalesce("subscription_id", benefitDependentReads().subscriptionIdOfSeat(eb.ref("seat_id"))).as("subscription_id"),
    ])
    .execute();

/** The grants the subscription backs that are granted now (its buyer's and its seat holders'), oldest first. */
export const grantedSubscriptionGrantIds = async (db: Executor, subscriptionId: string): Promise<string[]> => {
  const rows = await db
    .selectFrom("benefit_grants")
    .select("id")
    .where((eb) =>
      eb.or([
        eb("subscription_id", "=", subscriptionId),
        eb("seat_id", "in", benefitDependentReads().seatIdsOfSubscription(subscriptionId)),
      ]),
    )
    .where("granted_at", "is not", null)
    .orderBy("created_at")
    .orderBy("id")
    .execute();
  return rows.map((row) => row.id);
};

// Benefits as other modules embed them in their own statements.

/** A sub-select of the live (not deleted) benefits (`b`, every column) for a reader to narrow by its own table of benefit ids. */
export const selectLiveBenefits = (eb: SubqueryScope) => eb.selectFrom("benefits as b").selectAll("b").where("b.is_deleted", "=", false);
