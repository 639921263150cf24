import { customerExternalIdIn } from "../../db/list-filters.ts";
import { given } from "../../schema/pagination.ts";
import { expressionBuilder, type Expression, type ExpressionBuilder, type Insertable, type SqlBool, type Updateable } from "kysely";
import type { Database, Executor } from "../../db/database.ts";
import type { OrganizationScope } from "../../http/auth.ts";
import type { SortCriterion } from "../../schema/pagination.ts";
import type { RefundRow, RefundsTable } from "./refunds.table.ts";

export const insertRefund = (db: Executor, values: Insertable<RefundsTable>): Promise<RefundRow> =>
  db.insertInto("refunds").values(values).returningAll().executeTakeFirstOrThrow();

export const updateRefund = (db: Executor, id: string, values: Updateable<RefundsTable>): Promise<RefundRow> =>
  db.updateTable("refunds").set(values).where("id", "=", id).returningAll().executeTakeFirstOrThrow();

/** The refund the processor's event names: by our id (its metadata), or else by the processor's refund id. */
export const findRefundOfProcessor = (db: Executor, by: { id: string } | { reference: string }): Promise<RefundRow | undefined> => {
  const query = db.selectFrom("refunds").selectAll();
  return ("id" in by ? query.where("id", "=", by.id) : query.where("processor_reference", "=", by.reference)).executeTakeFirst();
};

/** The refunds of an order asked of the processor and not settled yet. */
export const pendingRefundsOf = (db: Executor, orderId: string): Promise<Pick<RefundRow, "amount" | "tax_amount">[]> =>
  db.selectFrom("refunds").select(["amount", "tax_amount"]).where("order_id", "=", orderId).where("status", "=", "pending").execute();

export const findRefundForUpdate = (db: Executor, id: string): Promise<RefundRow | undefined> =>
  db.selectFrom("refunds").selectAll().where("id", "=", id).forUpdate().executeTakeFirst();

export type RefundSortKey = "created_at" | "amount";

export interface RefundFilter {
  allowed: OrganizationScope;
  ids?: readonly string[];
  organizationIds?: readonly string[];
  orderIds?: readonly string[];
  subscriptionIds?: readonly string[];
  customerIds?: readonly string[];
  externalCustomerIds?: readonly string[];
  succeeded?: boolean;
}

function matches(eb: ExpressionBuilder<Database & { r: RefundsTable }, "r">, filter: RefundFilter): Expression<SqlBool> {
  const conditions: Expression<SqlBool>[] = [];
  if (filter.allowed !== null) conditions.push(eb("r.organization_id", "in", filter.allowed));
  if (given(filter.ids)) conditions.push(eb("r.id", "in", filter.ids));
  if (given(filter.organizationIds)) conditions.push(eb("r.organization_id", "in", filter.organizationIds));
  if (given(filter.orderIds)) conditions.push(eb("r.order_id", "in", filter.orderIds));
  if (given(filter.subscriptionIds)) conditions.push(eb("r.subscription_id", "in", filter.subscriptionIds));
  if (given(filter.customerIds)) conditions.push(eb("r.customer_id", "in", filter.customerIds));
  if (filter.succeeded !== undefined) conditions.push(eb("r.status", filter.succeeded ? "=" : "<>", "succeeded"));
  if (given(filter.externalCustomerIds)) conditions.push(customerExternalIdIn("r.customer_id", filter.externalCustomerIds));
  return eb.and(conditions);
}

/** One refund the scope may see. */
export const findRefund = (db: Executor, id: string, allowed: OrganizationScope): Promise<RefundRow | undefined> =>
  db
    .selectFrom("refunds as r")
    .selectAll("r")
    .where((eb) => matches(eb, { allowed, ids: [id] }))
    .executeTakeFirst();

export const countRefunds = async (db: Executor, filter: RefundFilter): Promise<number> =>
  Number(
    (
      await db
        .selectFrom("refunds as r")
        .where((eb) => matches(eb, filter))
        .select((eb) => eb.fn.countAll<number>().as("count"))
        .executeTakeFirstOrThrow()
    ).count,
  );

/** A page of refunds in the criteria's order, then the id in the first criterion's direction (pages neither repeat nor skip). */
export function listRefunds(
  db: Executor,
  filter: RefundFilter,
  sorting: readonly SortCriterion<RefundSortKey>[],
  window: { offset: number; limit: number },
): Promise<RefundRow[]> {
  let query = db
    .selectFrom("refunds as r")
    .selectAll("r")
    .where((eb) => matches(eb, filter));
  for (const { key, direction } of sorting) query = query.orderBy(`r.${key}`, direction);
  return query
    .orderBy("r.id", sorting[0]?.direction ?? "desc")
    .offset(window.offset)
    .limit(window.limit)
    .execute();
}

/**
 * The succeeded refunds, a table to join under `alias`: an order's receipt lists them and its late
 * invoice issues their credit notes (orders is below refunds: services.ts hands it over).
 */
export const succeededRefunds = <A extends string>(alias: A) =>
  expressionBuilder<Database>()
    .selectFrom("refunds")
    .select(["id", "order_id", "created_at", "amount", "tax_amount", "currency"])
    .where("status", "=", "succeeded")
    .as(alias);
