import {
  expressionBuilder,
  sql,
  type AliasableExpression,
  type Expression,
  type ExpressionBuilder,
  type Insertable,
  type RawBuilder,
  type SqlBool,
  type Updateable,
} from "kysely";
import type { Database, Executor } from "../../db/database.ts";
import type { OrganizationScope } from "../../http/auth.ts";
import { customerExternalIdIn, metadataMatches } from "../../db/list-filters.ts";
import { given, containsPattern, type MetadataFilter, type SortCriterion } from "../../schema/pagination.ts";
import { customerContacts, customerEmailOf } from "../customers/customers.steps.ts";
import { discountNameOf } from "../discounts/discounts.steps.ts";
import { organizationNameMatches } from "../organizations/organizations.steps.ts";
import { productIsRecurring, productNameMatches, productNameOf } from "../products/products.steps.ts";
import { orderEmbedded } from "./order-embedded.repository.ts";
import type { OrderSortKey, ProductBillingType } from "./orders.schemas.ts";
import type { OrderItemRow, OrderItemsTable, OrderRow, OrdersTable, OrderStatus } from "./orders.table.ts";

export const insertOrder = (db: Executor, values: Insertable<OrdersTable>) =>
  db.insertInto("orders").values(values).returningAll().executeTakeFirstOrThrow();

export const insertOrderItems = (db: Executor, values: Insertable<OrderItemsTable>[]) =>
  values.length ? db.insertInto("order_items").values(values).returningAll().execute() : Promise.resolve([]);

/** Which orders a caller may see: organizations (null = all) and, for a portal session, one customer. */
export interface OrderVisibility {
  allowed: OrganizationScope;
  customerId?: string;
}

export interface OrderFilter extends OrderVisibility {
  organizationIds?: readonly string[];
  productIds?: readonly string[];
  billingTypes?: readonly ProductBillingType[];
  discountIds?: readonly string[];
  customerIds?: readonly string[];
  externalCustomerIds?: readonly string[];
  checkoutIds?: readonly string[];
  subscriptionIds?: readonly string[];
  statuses?: readonly OrderStatus[];
  createdAfter?: Date;
  createdBefore?: Date;
  metadata?: MetadataFilter;
  /** Portal search: product or organization name contains the text. */
  query?: string;
}

type OrdersScope = ExpressionBuilder<Database & { o: OrdersTable }, "o">;

function visible(eb: OrdersScope, visibility: OrderVisibility): Expression<SqlBool>[] {
  const conditions: Expression<SqlBool>[] = [];
  if (visibility.allowed !== null) conditions.push(eb("o.organization_id", "in", visibility.allowed));
  if (visibility.customerId !== undefined) conditions.push(eb("o.customer_id", "=", visibility.customerId));
  return conditions;
}

function matches(eb: OrdersScope, filter: OrderFilter): Expression<SqlBool> {
  const conditions = visible(eb, filter);
  if (given(filter.organizationIds)) conditions.push(eb("o.organization_id", "in", filter.organizationIds));
  if (given(filter.productIds)) conditions.push(eb("o.product_id", "in", filter.productIds));
  if (given(filter.discountIds)) conditions.push(eb("o.discount_id", "in", filter.discountIds));
  if (given(filter.customerIds)) conditions.push(eb("o.customer_id", "in", filter.customerIds));
  if (given(filter.checkoutIds)) conditions.push(eb("o.checkout_id", "in", filter.checkoutIds));
  if (given(filter.subscriptionIds)) conditions.push(eb("o.subscription_id", "in", filter.subscriptionIds));
  if (given(filter.statuses)) conditions.push(eb("o.status", "in", filter.statuses));
  if (filter.createdAfter) conditions.push(eb("o.created_at", ">", filter.createdAfter));
  if (filter.createdBefore) conditions.push(eb("o.created_at", "<", filter.createdBefore));
  if (filter.metadata) conditions.push(metadataMatches(eb, "o.metadata", filter.metadata));
  if (given(filter.externalCustomerIds)) conditions.push(customerExternalIdIn("o.customer_id", filter.externalCustomerIds));
  if (given(filter.billingTypes) && filter.billingTypes.length === 1) {
    // Both types together match every order with a product; orders without one never match.
    const recurring = filter.billingTypes[0] === "recurring";
    conditions.push(productIsRecurring(eb.ref("o.product_id"), recurring));
  } else if (given(filter.billingTypes)) {
    conditions.push(eb("o.product_id", "is not", null));
  }
  if (filter.query !== undefined && filter.query !== "") {
    const pattern = containsPattern(filter.query);
    conditions.push(
      eb.or([productNameMatches(eb.ref("o.product_id"), pattern), organizationNameMatches(eb.ref("o.organization_id"), pattern)]),
    );
  }
  return eb.and(conditions);
}

/** The hosted service's status order: the lifecycle, not the alphabet. */
const STATUS_RANK = sql<number>`CASE o.status WHEN 'draft' THEN 1 WHEN 'pending' THEN 2 WHEN 'paid' THEN 3 WHEN 'partially_refunded' THEN 4 WHEN 'refunded' THEN 5 ELSE 6 END`;

/** What each sort key orders by; related names come from a scalar subquery (null when absent). */
const sortExpression = (key: OrderSortKey) => {
  switch (key) {
    case "created_at":
      return sql.ref("o.created_at");
    case "status":
      return STATUS_RANK;
    case "invoice_number":
      return sql.ref("o.invoice_number");
    case "amount":
    case "net_amount":
      return sql.ref("o.net_amount");
    case "customer":
      return customerEmailOf(sql.ref("o.customer_id"));
    case "product":
      return productNameOf(sql.ref("o.product_id"));
    case "discount":
      return discountNameOf(sql.ref("o.discount_id"));
    case "subscription":
      return sql.ref("o.subscription_id");
  }
};

const countQuery = (db: Executor, filter: OrderFilter) =>
  db
    .selectFrom("orders as o")
    .where((eb) => matches(eb, filter))
    .select((eb) => eb.fn.countAll<number>().as("count"));

export const countOrders = async (db: Executor, filter: OrderFilter): Promise<number> =>
  (await countQuery(db, filter).executeTakeFirstOrThrow()).count;

type Sorting = readonly SortCriterion<OrderSortKey>[];

/** The requested order, then the id in the direction of the last criterion (see listOrders). */
function ordered<Q extends { orderBy: (expression: ReturnType<typeof sortExpression> | "o.id", direction: "asc" | "desc") => Q }>(
  query: Q,
  sorting: Sorting,
): Q {
  let sortedQuery = query;
  for (const { key, direction } of sorting) sortedQuery = sortedQuery.orderBy(sortExpression(key), direction);
  return sortedQuery.orderBy("o.id", sorting.at(-1)?.direction ?? "desc");
}

/**
 * One page of orders. The id breaks ties last, in the direction of the last criterion, so pages
 * neither repeat nor skip rows and an index on (…, created_at, id) serves the default order.
 */
export const listOrders = (
  db: Executor,
  filter: OrderFilter,
  sorting: Sorting,
  window: { limit: number; offset: number },
): Promise<OrderRow[]> =>
  ordered(
    db
      .selectFrom("orders as o")
      .selectAll("o")
      .where((eb) => matches(eb, filter)),
    sorting,
  )
    .limit(window.limit)
    .offset(window.offset)
    .execute();

/** Every order matching the filter with its customer's email and name, newest first: the export's rows. */
export const exportOrderRows = (db: Executor, filter: OrderFilter) =>
  db
    .selectFrom("orders as o")
    .innerJoin(customerContacts("c"), "c.id", "o.customer_id")
    .selectAll("o")
    .select(["c.email", "c.name as customer_name"])
    .where((eb) => matches(eb, filter))
    .orderBy("o.created_at", "desc")
    .orderBy("o.id", "desc")
    .execute();

/**
 * A page of orders with their embedded relations and the count of every match, in one statement
 * (one round trip, one snapshot). The page's ids are picked first (an index-only scan past the
 * offset), so only the rows shown are read whole. A page past the end has no row to carry the
 * count, which is then counted on its own.
 */
export async function pageOrdersEmbedded(db: Executor, filter: OrderFilter, sorting: Sorting, window: { limit: number; offset: number }) {
  const pageIds = ordered(
    db
      .selectFrom("orders as o")
      .select("o.id")
      .where((eb) => matches(eb, filter)),
    sorting,
  )
    .limit(window.limit)
    .offset(window.offset);
  const rows = await ordered(
    db
      .selectFrom("orders as o")
      .selectAll("o")
      .select(orderEmbedded)
      // An aggregate always answers one row.
      .select(countQuery(db, filter).$asScalar().$notNull().as("total_count"))
      .where("o.id", "in", pageIds),
    sorting,
  ).execute();
  const [first] = rows;
  if (first) return { rows, total: first.total_count };
  // An empty first page means nothing matches; an empty later page may be past the end.
  return { rows, total: window.offset === 0 ? 0 : await countOrders(db, filter) };
}

/** One order with its embedded relations, as visible to the caller. */
export const findOrderEmbedded = (db: Executor, id: string, visibility: OrderVisibility) =>
  db
    .selectFrom("orders as o")
    .selectAll("o")
    .select(orderEmbedded)
    .where("o.id", "=", id)
    .where((eb) => eb.and(visible(eb, visibility)))
    .executeTakeFirst();

export type OrderEmbeddedRow = NonNullable<Awaited<ReturnType<typeof findOrderEmbedded>>>;

/** The order a checkout made (one at most), whatever organization: the caller holds the checkout. */
export const findOrderOfCheckout = (db: Executor, checkoutId: string): Promise<OrderRow | undefined> =>
  db.selectFrom("orders").selectAll().where("checkout_id", "=", checkoutId).executeTakeFirst();

export const findOrder = (db: Executor, id: string, visibility: OrderVisibility): Promise<OrderRow | undefined> =>
  db
    .selectFrom("orders as o")
    .selectAll("o")
    .where("o.id", "=", id)
    .where((eb) => eb.and(visible(eb, visibility)))
    .executeTakeFirst();

/** Same, locking the row: edits and invoice requests of one order run one at a time. */
export const findOrderForUpdate = (db: Executor, id: string, visibility: OrderVisibility): Promise<OrderRow | undefined> =>
  db
    .selectFrom("orders as o")
    .selectAll("o")
    .where("o.id", "=", id)
    .where((eb) => eb.and(visible(eb, visibility)))
    .forUpdate()
    .executeTakeFirst();

export const updateOrder = (db: Executor, id: string, values: Updateable<OrdersTable>): Promise<OrderRow> =>
  db.updateTable("orders").set(values).where("id", "=", id).returningAll().executeTakeFirstOrThrow();

export const itemsOfOrders = (db: Executor, orderIds: readonly string[]): Promise<OrderItemRow[]> =>
  orderIds.length
    ? db.selectFrom("order_items").selectAll().where("order_id", "in", orderIds).orderBy("order_id").orderBy("position").execute()
    : Promise.resolve([]);

// What the payments list reads of its orders, as expressions of its own statement (payments, the
// lowest feature, imports none: services.ts hands them to it).

/** The checkout the order of the caller's `orderId` column came from. */
export const checkoutIdOfOrder = (orderId: Expression<string>): AliasableExpression<string | null> =>
  expressionBuilder<Database>().selectFrom("orders as o").select("o.checkout_id").where("o.id", "=", orderId).$asScalar();

/** Whether the order of the caller's `orderId` column came from one of the checkouts. */
export const orderFromCheckoutIn = (orderId: Expression<string | null>, checkoutIds: readonly string[]): Expression<SqlBool> => {
  const eb = expressionBuilder<Database>();
  return eb.exists(eb.selectFrom("orders as o").select("o.id").where("o.id", "=", orderId).where("o.checkout_id", "in", checkoutIds));
};

/** The product of the order of the caller's `orderId` column (what a grant's place on its product is read from). */
export const productIdOfOrder = (orderId: Expression<string | null>): RawBuilder<string | null> =>
  sql<string | null>`(SELECT o.product_id FROM orders o WHERE o.id = ${orderId})`;

/** The orders of a product, a subquery (a one-time seat order's claimed seats follow its benefits). */
export const orderIdsOfProduct = (productId: string): Expression<string> =>
  expressionBuilder<Database>().selectFrom("orders as o").select("o.id").where("o.product_id", "=", productId).$asScalar();

/** The subscription an order bills, if any. */
/** The order's subscription id, a subquery for a statement that locks the subscription through it (never changes once written). */
export const subscriptionIdOfOrder = (orderId: string) =>
  expressionBuilder<Database>().selectFrom("orders").select("subscription_id").where("id", "=", orderId);

/** Whether the order's subscription had a renewal order (`subscription_cycle`) before this one was created. */
export const renewedBefore = async (db: Executor, order: Pick<OrderRow, "subscription_id" | "created_at">): Promise<boolean> =>
  order.subscription_id !== null &&
  (await db
    .selectFrom("orders")
    .select("id")
    .where("subscription_id", "=", order.subscription_id)
    .where("billing_reason", "=", "subscription_cycle")
    .where("created_at", "<", order.created_at)
    .limit(1)
    .executeTakeFirst()) !== undefined;
