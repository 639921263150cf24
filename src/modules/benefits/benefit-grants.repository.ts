import { sql, type Expression, type ExpressionBuilder, type SqlBool } from "kysely";
import { jsonObjectFrom } from "kysely/helpers/postgres";
import { countRows } from "../../db/count-rows.ts";
import type { Database, Executor, SubqueryScope } from "../../db/database.ts";
import type { OrganizationScope } from "../../http/auth.ts";
import { customerExternalIdIn } from "../../db/list-filters.ts";
import { given, containsPattern, type SortCriterion } from "../../schema/pagination.ts";
import { selectCustomersForRead } from "../customers/customers.steps.ts";
import { organizationSlug } from "../organizations/organizations.steps.ts";
import type { BenefitGrantSortKey } from "./benefit-grants.schemas.ts";
import type { BenefitType } from "./benefits.schemas.ts";
import type { BenefitGrantsTable } from "./benefits.table.ts";
import { benefitDependentReads } from "./benefit-dependent-reads.ts";

/**
 * Which grants a read matches. The organization's list uses the first filters; a portal session
 * adds its customer, sees only granted grants of public benefits, and filters by what it bought.
 */
export interface GrantFilter {
  allowed: OrganizationScope;
  organizationIds?: readonly string[];
  customerIds?: readonly string[];
  /** The grants of one benefit (its own route). */
  benefitId?: string;
  externalCustomerIds?: readonly string[];
  isGranted?: boolean;
  /** The portal: the session's customer, and only grants of public benefits. */
  customerId?: string;
  /** The portal's list leaves revoked grants out; its reads by id keep them (a revoked grant's update is refused, not unknown). */
  notRevoked?: boolean;
  query?: string;
  types?: readonly BenefitType[];
  benefitIds?: readonly string[];
  checkoutIds?: readonly string[];
  orderIds?: readonly string[];
  subscriptionIds?: readonly string[];
  memberIds?: readonly string[];
}

type GrantsScope = ExpressionBuilder<Database & { g: BenefitGrantsTable }, "g">;

const benefitWhere = (eb: GrantsScope) => eb.selectFrom("benefits as b").select("b.id").whereRef("b.id", "=", "g.benefit_id");

function matches(eb: GrantsScope, filter: GrantFilter): Expression<SqlBool> {
  const conditions: Expression<SqlBool>[] = [];
  if (filter.allowed !== null) conditions.push(eb("g.organization_id", "in", filter.allowed));
  if (given(filter.organizationIds)) conditions.push(eb("g.organization_id", "in", filter.organizationIds));
  if (given(filter.customerIds)) conditions.push(eb("g.customer_id", "in", filter.customerIds));
  if (filter.benefitId !== undefined) conditions.push(eb("g.benefit_id", "=", filter.benefitId));
  if (given(filter.externalCustomerIds)) conditions.push(customerExternalIdIn("g.customer_id", filter.externalCustomerIds));
  // Every grant here either succeeds or is not made, so "not granted" is exactly "revoked".
  if (filter.isGranted !== undefined) conditions.push(eb("g.granted_at", filter.isGranted ? "is not" : "is", null));
  if (filter.customerId !== undefined) {
    conditions.push(eb("g.customer_id", "=", filter.customerId));
    conditions.push(eb.exists(benefitWhere(eb).where("b.visibility", "=", "public")));
  }
  if (filter.notRevoked) conditions.push(eb("g.revoked_at", "is", null));
  if (filter.query !== undefined && filter.query !== "")
    conditions.push(eb.exists(benefitWhere(eb).where("b.description", "ilike", containsPattern(filter.query))));
  if (given(filter.types)) conditions.push(eb.exists(benefitWhere(eb).where("b.type", "in", filter.types)));
  if (given(filter.benefitIds)) conditions.push(eb("g.benefit_id", "in", filter.benefitIds));
  if (given(filter.checkoutIds)) {
    const ids = filter.checkoutIds;
    const reads = benefitDependentReads();
    conditions.push(
      eb.or([reads.orderFromCheckoutIn(eb.ref("g.order_id"), ids), reads.subscriptionFromCheckoutIn(eb.ref("g.subscription_id"), ids)]),
    );
  }
  if (given(filter.orderIds)) conditions.push(eb("g.order_id", "in", filter.orderIds));
  if (given(filter.subscriptionIds)) conditions.push(eb("g.subscription_id", "in", filter.subscriptionIds));
  // No grant is made for a member yet (every `member_id` is null), so a member filter matches none.
  if (given(filter.memberIds)) conditions.push(sql<boolean>`false`);
  return eb.and(conditions);
}

/** The organization's sort keys, and the portal's (benefit type, seller's slug, the benefit's place on the product). */
export type GrantOrdering = BenefitGrantSortKey | "type" | "organization" | "product_benefit";

const sortExpression = (key: GrantOrdering) => {
  switch (key) {
    case "created_at":
    case "granted_at":
    case "revoked_at":
      return sql.ref(`g.${key}`);
    case "type":
      return sql`(SELECT b.type FROM benefits b WHERE b.id = g.benefit_id)`;
    case "organization":
      return organizationSlug(sql.ref("g.organization_id"));
    case "product_benefit": {
      // The product that granted it: the subscription's (now), else the order's.
      const reads = benefitDependentReads();
      return reads.benefitPositionOnProduct(
        sql.ref("g.benefit_id"),
        sql`COALESCE(${reads.productIdOfSubscription(sql.ref("g.subscription_id"))}, ${reads.productIdOfOrder(sql.ref("g.order_id"))})`,
      );
    }
  }
};

/** The grant with its customer and benefit, as JSON columns of a query over `benefit_grants as g`. */
const embedded = (eb: GrantsScope) => [
  jsonObjectFrom(selectCustomersForRead(eb).where("c.id", "=", eb.ref("g.customer_id"))).as("customer"),
  jsonObjectFrom(eb.selectFrom("benefits as b").selectAll("b").whereRef("b.id", "=", "g.benefit_id")).as("benefit"),
];

export const countGrants = (db: Executor, filter: GrantFilter): Promise<number> =>
  countRows(db.selectFrom("benefit_grants as g").where((eb) => matches(eb, filter)));

/** One page, embedded; the id breaks ties in the direction of the last criterion. */
export function pageGrantsEmbedded(
  db: Executor,
  filter: GrantFilter,
  sorting: readonly SortCriterion<GrantOrdering>[],
  window: { limit: number; offset: number },
) {
  let query = db
    .selectFrom("benefit_grants as g")
    .selectAll("g")
    .select(embedded)
    .where((eb) => matches(eb, filter));
  for (const { key, direction } of sorting) query = query.orderBy(sortExpression(key), direction);
  return query
    .orderBy("g.id", sorting.at(-1)?.direction ?? "desc")
    .limit(window.limit)
    .offset(window.offset)
    .execute();
}

/** Grants by id with what their views embed, in no particular order. */
export async function grantsEmbedded(db: Executor, ids: readonly string[], filter: GrantFilter = { allowed: null }) {
  if (ids.length === 0) return [];
  return db
    .selectFrom("benefit_grants as g")
    .selectAll("g")
    .select(embedded)
    .where("g.id", "in", ids)
    .where((eb) => matches(eb, filter))
    .execute();
}

export type GrantEmbeddedRow = Awaited<ReturnType<typeof pageGrantsEmbedded>>[number];

/** The grant locked for a change, as the portal's update reads it. */
export const findGrantForUpdate = (db: Executor, id: string) =>
  db.selectFrom("benefit_grants").selectAll().where("id", "=", id).forUpdate().executeTakeFirst();

export const updateGrantProperties = (db: Executor, id: string, properties: Record<string, unknown>, now: Date) =>
  db
    .updateTable("benefit_grants")
    .set({ properties: JSON.stringify(properties), modified_at: now })
    .where("id", "=", id)
    .execute();

// Grants as other modules embed them in their own statements.

/**
 * A sub-select of a customer's grants (`g`) joined to their benefit (`b`), through
 * `benefit_grants_org_customer_idx`, for a reader to filter and pick columns.
 */
export const grantsOfCustomer = (eb: SubqueryScope, customer: { organizationId: Expression<string>; id: Expression<string> }) =>
  eb
    .selectFrom("benefit_grants as g")
    .innerJoin("benefits as b", "b.id", "g.benefit_id")
    .where("g.organization_id", "=", customer.organizationId)
    .where("g.customer_id", "=", customer.id);

/**
 * Whether the customer holds a granted, unrevoked `meter_credit` grant on the meter (the customer
 * portal shows only the meters a customer holds), over the caller's columns.
 */
export const holdsMeterCredit = (customerId: Expression<string>, meterId: Expression<string>) =>
  sql<SqlBool>`EXISTS (
    SELECT 1 FROM benefit_grants g JOIN benefits b ON b.id = g.benefit_id
    WHERE g.customer_id = ${customerId} AND g.revoked_at IS NULL AND g.granted_at IS NOT NULL
      AND b.type = 'meter_credit' AND b.properties->>'meter_id' = ${meterId}::text
  )`;

/** A grant with its benefit's type and terms, locked: two runs of its meter credit cannot both apply it. */
export const grantWithTermsForUpdate = (db: Executor, grantId: string) =>
  db
    .selectFrom("benefit_grants as g")
    .innerJoin("benefits as b", "b.id", "g.benefit_id")
    .select(["g.id", "g.organization_id", "g.customer_id", "g.revoked_at", "g.properties", "b.properties as terms", "b.type"])
    .where("g.id", "=", grantId)
    .forUpdate("g")
    .executeTakeFirst();

/** The grants an order made, oldest first: which benefit, and what the grant holds (a license key's id). */
export const grantsOfOrder = (db: Executor, orderId: string) =>
  db
    .selectFrom("benefit_grants")
    .select(["benefit_id", "properties"])
    .where("order_id", "=", orderId)
    .orderBy("granted_at")
    .orderBy("id")
    .execute();

/**
 * The customers and downloadables benefits of these grants, once per pair, with the benefit's
 * properties and whether any grant of it is still granted to the customer.
 */
export const downloadableGrantHolders = (db: Executor, grantIds: readonly string[]) =>
  grantIds.length === 0
    ? Promise.resolve([])
    : db
        .selectFrom("benefit_grants as g")
        .innerJoin("benefits as b", "b.id", "g.benefit_id")
        .where("g.id", "in", grantIds)
        .where("b.type", "=", "downloadables")
        .select((eb) => [
          "g.customer_id",
          "g.benefit_id",
          "b.organization_id",
          "b.properties",
          eb
            .exists(
              eb
                .selectFrom("benefit_grants as other")
                .select("other.id")
                .whereRef("other.customer_id", "=", "g.customer_id")
                .whereRef("other.benefit_id", "=", "g.benefit_id")
                .where("other.granted_at", "is not", null),
            )
            .as("still_granted"),
        ])
        .distinctOn(["g.customer_id", "g.benefit_id"])
        .orderBy("g.customer_id")
        .orderBy("g.benefit_id")
        .execute();
