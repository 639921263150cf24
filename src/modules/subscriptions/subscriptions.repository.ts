import { sql, type Expression, type ExpressionBuilder, type Insertable, type SqlBool, type Updateable } from "kysely";
import { jsonArrayFrom } from "kysely/helpers/postgres";
import type { Database, Executor } from "../../db/database.ts";
import { countRows } from "../../db/count-rows.ts";
import type { OrganizationScope } from "../../http/auth.ts";
import { customerExternalIdIn, metadataMatches } from "../../db/list-filters.ts";
import { given, containsPattern, type MetadataFilter, type SortCriterion } from "../../schema/pagination.ts";
import { customerContacts, customerEmailOf, customerJson } from "../customers/customers.steps.ts";
import { discountJson, discountNameOf, discountNames } from "../discounts/discounts.steps.ts";
import { organizationNameMatches, organizationNameOf } from "../organizations/organizations.steps.ts";
import { productNameMatches, productNameOf, productNames, productPriceRows, productWithRelationsJson } from "../products/products.steps.ts";
import { subscriptionIdOfOrder } from "../orders/orders.steps.ts";
import type { SubscriptionSortKey } from "./subscriptions.schemas.ts";
import type {
  CancellationReason,
  SubscriptionPricesTable,
  SubscriptionRow,
  SubscriptionsTable,
  SubscriptionStatus,
} from "./subscriptions.table.ts";

export const insertSubscription = (db: Executor, values: Insertable<SubscriptionsTable>): Promise<SubscriptionRow> =>
  db.insertInto("subscriptions").values(values).returningAll().executeTakeFirstOrThrow();

export const insertSubscriptionPrices = async (db: Executor, values: Insertable<SubscriptionPricesTable>[]): Promise<void> => {
  if (values.length) await db.insertInto("subscription_prices").values(values).execute();
};

export const updateSubscription = (db: Executor, id: string, values: Updateable<SubscriptionsTable>): Promise<SubscriptionRow> =>
  db.updateTable("subscriptions").set(values).where("id", "=", id).returningAll().executeTakeFirstOrThrow();

/** Which subscriptions a caller may see: organizations (null = all) and, for a portal session, one customer. */
export interface SubscriptionVisibility {
  allowed: OrganizationScope;
  customerId?: string;
}

export interface SubscriptionFilter extends SubscriptionVisibility {
  organizationIds?: readonly string[];
  /** Only these subscriptions (the portal's list of those where a member holds a seat). */
  ids?: readonly string[];
  productIds?: readonly string[];
  customerIds?: readonly string[];
  externalCustomerIds?: readonly string[];
  discountIds?: readonly string[];
  /** The deprecated `active` filter: true = trialing or active, false = canceled or unpaid. */
  active?: boolean;
  statuses?: readonly SubscriptionStatus[];
  cancelAtPeriodEnd?: boolean;
  cancellationReasons?: readonly CancellationReason[];
  canceledAtOrAfter?: Date;
  canceledAtOrBefore?: Date;
  startedAfter?: Date;
  startedBefore?: Date;
  metadata?: MetadataFilter;
  /** Portal search: the product's or the organization's name contains the text. */
  query?: string;
}

type SubscriptionsScope = ExpressionBuilder<Database & { s: SubscriptionsTable }, "s">;

/** A row that never started (the hosted service's incomplete rows) is hidden from every read. */
function visible(eb: SubscriptionsScope, visibility: SubscriptionVisibility): Expression<SqlBool>[] {
  const conditions: Expression<SqlBool>[] = [eb("s.started_at", "is not", null)];
  if (visibility.allowed !== null) conditions.push(eb("s.organization_id", "in", visibility.allowed));
  if (visibility.customerId !== undefined) conditions.push(eb("s.customer_id", "=", visibility.customerId));
  return conditions;
}

function matches(eb: SubscriptionsScope, filter: SubscriptionFilter): Expression<SqlBool> {
  const conditions = visible(eb, filter);
  if (given(filter.organizationIds)) conditions.push(eb("s.organization_id", "in", filter.organizationIds));
  if (filter.ids) conditions.push(filter.ids.length ? eb("s.id", "in", filter.ids) : eb.val(false));
  if (given(filter.productIds)) conditions.push(eb("s.product_id", "in", filter.productIds));
  if (given(filter.customerIds)) conditions.push(eb("s.customer_id", "in", filter.customerIds));
  if (given(filter.discountIds)) conditions.push(eb("s.discount_id", "in", filter.discountIds));
  if (given(filter.statuses)) conditions.push(eb("s.status", "in", filter.statuses));
  if (filter.active !== undefined) conditions.push(eb("s.status", "in", filter.active ? ["trialing", "active"] : ["canceled", "unpaid"]));
  if (filter.cancelAtPeriodEnd !== undefined) conditions.push(eb("s.cancel_at_period_end", "=", filter.cancelAtPeriodEnd));
  if (given(filter.cancellationReasons)) conditions.push(eb("s.customer_cancellation_reason", "in", filter.cancellationReasons));
  // The hosted service's bounds: cancellation dates inclusive, start dates strict.
  if (filter.canceledAtOrAfter) conditions.push(eb("s.canceled_at", ">=", filter.canceledAtOrAfter));
  if (filter.canceledAtOrBefore) conditions.push(eb("s.canceled_at", "<=", filter.canceledAtOrBefore));
  if (filter.startedAfter) conditions.push(eb("s.started_at", ">", filter.startedAfter));
  if (filter.startedBefore) conditions.push(eb("s.started_at", "<", filter.startedBefore));
  if (filter.metadata) conditions.push(metadataMatches(eb, "s.metadata", filter.metadata));
  if (filter.query !== undefined && filter.query !== "") {
    const pattern = containsPattern(filter.query);
    conditions.push(
      eb.or([productNameMatches(eb.ref("s.product_id"), pattern), organizationNameMatches(eb.ref("s.organization_id"), pattern)]),
    );
  }
  if (given(filter.externalCustomerIds)) conditions.push(customerExternalIdIn("s.customer_id", filter.externalCustomerIds));
  return eb.and(conditions);
}

/** The hosted service's status order: the lifecycle, not the alphabet. */
const STATUS_RANK = sql<number>`array_position(ARRAY['incomplete','incomplete_expired','trialing','active','past_due','canceled','unpaid','paused'], s.status)`;

/** The merchant's sort keys, and the portal's `organization` (its name). */
export type SubscriptionOrdering = SubscriptionSortKey | "organization";

const sortExpression = (key: SubscriptionOrdering) => {
  switch (key) {
    case "organization":
      return organizationNameOf(sql.ref("s.organization_id"));
    case "customer":
      return customerEmailOf(sql.ref("s.customer_id"));
    case "status":
      return STATUS_RANK;
    case "started_at":
    case "current_period_end":
    case "ended_at":
    case "ends_at":
    case "amount":
      return sql.ref(`s.${key}`);
    case "product":
      return productNameOf(sql.ref("s.product_id"));
    case "discount":
      return discountNameOf(sql.ref("s.discount_id"));
  }
};

/** Everything the `Subscription` read schema embeds, as JSON columns of a query over `subscriptions as s`. */
const embedded = (eb: SubscriptionsScope) => [
  customerJson(eb.ref("s.customer_id")).as("customer"),
  productWithRelationsJson(eb.ref("s.product_id")).as("product"),
  discountJson(eb.ref("s.discount_id")).as("discount"),
  jsonArrayFrom(
    eb
      .selectFrom("subscription_prices as sp")
      .innerJoin(productPriceRows("pp"), "pp.id", "sp.product_price_id")
      .selectAll("pp")
      .whereRef("sp.subscription_id", "=", "s.id")
      .orderBy("sp.position"),
  ).as("prices"),
];

type Sorting = readonly SortCriterion<SubscriptionOrdering>[];

export const countSubscriptions = (db: Executor, filter: SubscriptionFilter): Promise<number> =>
  countRows(db.selectFrom("subscriptions as s").where((eb) => matches(eb, filter)));

/** One page, with the embedded relations; the id breaks ties in the direction of the last criterion. */
export function pageSubscriptionsEmbedded(
  db: Executor,
  filter: SubscriptionFilter,
  sorting: Sorting,
  window: { limit: number; offset: number },
) {
  let query = db
    .selectFrom("subscriptions as s")
    .selectAll("s")
    .select(embedded)
    .where((eb) => matches(eb, filter));
  // PostgreSQL's null placement, as the hosted service's: last ascending, first descending.
  for (const { key, direction } of sorting) query = query.orderBy(sortExpression(key), direction);
  return query
    .orderBy("s.id", sorting.at(-1)?.direction ?? "desc")
    .limit(window.limit)
    .offset(window.offset)
    .execute();
}

export const findSubscriptionEmbedded = (db: Executor, id: string, visibility: SubscriptionVisibility) =>
  db
    .selectFrom("subscriptions as s")
    .selectAll("s")
    .select(embedded)
    .where("s.id", "=", id)
    .where((eb) => eb.and(visible(eb, visibility)))
    .executeTakeFirst();

export type SubscriptionEmbeddedRow = NonNullable<Awaited<ReturnType<typeof findSubscriptionEmbedded>>>;

/** Updates a subscription and answers it as written with its embedded relations: the write and the read in one statement. */
export const updateSubscriptionEmbedded = (
  db: Executor,
  id: string,
  values: Updateable<SubscriptionsTable>,
): Promise<SubscriptionEmbeddedRow> =>
  db.updateTable("subscriptions as s").set(values).where("s.id", "=", id).returningAll("s").returning(embedded).executeTakeFirstOrThrow();

/** The row locked: every change to one subscription (renewal, update, cancel) runs one at a time. */
/** A started subscription the caller may see, unlocked (a read). */
export const findSubscription = (db: Executor, id: string, visibility: SubscriptionVisibility): Promise<SubscriptionRow | undefined> =>
  db
    .selectFrom("subscriptions as s")
    .selectAll("s")
    .where("s.id", "=", id)
    .where((eb) => eb.and(visible(eb, visibility)))
    .executeTakeFirst();

export const findSubscriptionForUpdate = (
  db: Executor,
  id: string,
  visibility: SubscriptionVisibility,
): Promise<SubscriptionRow | undefined> =>
  db
    .selectFrom("subscriptions as s")
    .selectAll("s")
    .where("s.id", "=", id)
    .where((eb) => eb.and(visible(eb, visibility)))
    .forUpdate()
    .executeTakeFirst();

/**
 * The subscription of an order, locked, in one statement (the order's subscription id read in a
 * subquery): the lock a charge of the order takes first, unscoped.
 */
export const findSubscriptionOfOrderForUpdate = (db: Executor, orderId: string): Promise<SubscriptionRow | undefined> =>
  db.selectFrom("subscriptions as s").selectAll("s").where("s.id", "=", subscriptionIdOfOrder(orderId)).forUpdate().executeTakeFirst();

/** Rows by id, unscoped: the caller already holds ids it may see (the portal's orders). */
export const subscriptionsByIds = (db: Executor, ids: readonly string[]): Promise<SubscriptionRow[]> =>
  ids.length ? db.selectFrom("subscriptions").selectAll().where("id", "in", ids).execute() : Promise.resolve([]);

/** The subscription's billed prices with their frozen amounts, in display order. */
export const frozenPrices = (db: Executor, subscriptionId: string) =>
  db
    .selectFrom("subscription_prices as sp")
    .innerJoin(productPriceRows("pp"), "pp.id", "sp.product_price_id")
    .select(["sp.product_price_id", "sp.amount", "pp.amount_type", "pp.seat_tiers"])
    .where("sp.subscription_id", "=", subscriptionId)
    .orderBy("sp.position")
    .execute();

/** Replaces the subscription's billed prices (a product change). */
export async function replaceSubscriptionPrices(db: Executor, subscriptionId: string, values: Insertable<SubscriptionPricesTable>[]) {
  await db.deleteFrom("subscription_prices").where("subscription_id", "=", subscriptionId).execute();
  await insertSubscriptionPrices(db, values);
}

/** Sets what one of the subscription's prices bills per period (a seat change). */
export const setSubscriptionPriceAmount = (db: Executor, subscriptionId: string, priceId: string, amount: number) =>
  db
    .updateTable("subscription_prices")
    .set({ amount })
    .where("subscription_id", "=", subscriptionId)
    .where("product_price_id", "=", priceId)
    .execute();

/** Every matching subscription with the names an export prints, newest start first (no page: exports are whole). */
export const exportRows = (db: Executor, filter: SubscriptionFilter) =>
  db
    .selectFrom("subscriptions as s")
    .innerJoin(customerContacts("c"), "c.id", "s.customer_id")
    .innerJoin(productNames("p"), "p.id", "s.product_id")
    .leftJoin(discountNames("d"), "d.id", "s.discount_id")
    .selectAll("s")
    .select([
      "c.email",
      "c.name as customer_name",
      "c.billing_name",
      "c.billing_address",
      "p.name as product_name",
      "d.name as discount_name",
    ])
    .where((eb) => matches(eb, filter))
    .orderBy("s.started_at", "desc")
    .orderBy("s.id", "desc")
    .execute();
