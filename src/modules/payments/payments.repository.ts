import { given } from "../../schema/pagination.ts";
import {
  expressionBuilder,
  sql,
  type AliasableExpression,
  type Expression,
  type ExpressionBuilder,
  type Insertable,
  type SqlBool,
} from "kysely";
import type { Database, Executor } from "../../db/database.ts";
import type { OrganizationScope } from "../../http/auth.ts";
import type { SortCriterion } from "../../schema/pagination.ts";
import type { PaymentSortKey } from "./payments.schemas.ts";
import type { PaymentMethodsTable, PaymentRow, PaymentsTable, PaymentStatus, PaymentTrigger } from "./payments.table.ts";

export const insertPayment = (db: Executor, values: Insertable<PaymentsTable>): Promise<PaymentRow> =>
  db.insertInto("payments").values(values).returningAll().executeTakeFirstOrThrow();

/**
 * An order's attempts, of the given triggers and status or all: every attempt gives the next
 * attempt's number, hence its idempotency key; failed dunning ones are what dunning counts.
 */
export async function countPayments(
  db: Executor,
  orderId: string,
  filter: { triggers?: readonly PaymentTrigger[]; status?: PaymentStatus } = {},
): Promise<number> {
  let query = db
    .selectFrom("payments")
    .select((eb) => eb.fn.countAll<number>().as("count"))
    .where("order_id", "=", orderId);
  if (filter.triggers) query = query.where("trigger", "in", filter.triggers);
  if (filter.status) query = query.where("status", "=", filter.status);
  return Number((await query.executeTakeFirstOrThrow()).count);
}

/** The processor's idempotency key of an order's attempt after `attempts` earlier ones: the order and the attempt's number. */
export const attemptKey = (orderId: string, attempts: number): string => `${orderId}:${attempts + 1}`;

/** The processor's idempotency key of an order's next attempt: the order and the attempt's number. */
export const nextAttemptKey = async (db: Executor, orderId: string): Promise<string> =>
  attemptKey(orderId, await countPayments(db, orderId));

/** Failed attempts of an order started by the given triggers: what dunning counts. */
export const countFailedPayments = (db: Executor, orderId: string, triggers: readonly PaymentTrigger[]): Promise<number> =>
  countPayments(db, orderId, { triggers, status: "failed" });

/** The order's latest attempt; two of one instant (never in practice) are ordered by id, so the answer is stable. */
export const latestPayment = (db: Executor, orderId: string): Promise<PaymentRow | undefined> =>
  db
    .selectFrom("payments")
    .selectAll()
    .where("order_id", "=", orderId)
    .orderBy("created_at", "desc")
    .orderBy("id", "desc")
    .limit(1)
    .executeTakeFirst();

/** Whether the order has an attempt, of any outcome, under the processor's reference. */
export const hasPaymentOfReference = async (db: Executor, orderId: string, reference: string): Promise<boolean> =>
  (await db
    .selectFrom("payments")
    .select("id")
    .where("order_id", "=", orderId)
    .where("processor_reference", "=", reference)
    .executeTakeFirst()) !== undefined;

/**
 * What a charge reads of the order's attempts before it, in one statement: those still waiting for
 * the customer (3-D Secure), oldest first, and how many there are of any outcome (what the next
 * attempt's key counts). The caller holds the order's row lock.
 */
export async function orderAttempts(db: Executor, orderId: string): Promise<{ waiting: PaymentRow[]; count: number }> {
  const rows = await db.selectFrom("payments").selectAll().where("order_id", "=", orderId).orderBy("created_at").orderBy("id").execute();
  return { waiting: rows.filter((row) => row.status === "pending"), count: rows.length };
}

/** The order's attempts still waiting for the customer (3-D Secure), oldest first; the caller holds the order's row lock. */
export const pendingPayments = (db: Executor, orderId: string): Promise<PaymentRow[]> =>
  db
    .selectFrom("payments")
    .selectAll()
    .where("order_id", "=", orderId)
    .where("status", "=", "pending")
    .orderBy("created_at")
    .orderBy("id")
    .execute();

/**
 * Settles a waiting attempt with the processor's outcome (and the method a new card was saved as);
 * undefined when it was settled already, so only the first settlement applies.
 */
export const settlePendingPayment = (
  db: Executor,
  id: string,
  outcome: { status: "succeeded" | "failed"; methodId: string | null; declineMessage: string | null; now: Date },
): Promise<PaymentRow | undefined> =>
  db
    .updateTable("payments")
    .set({ status: outcome.status, payment_method_id: outcome.methodId, decline_message: outcome.declineMessage, modified_at: outcome.now })
    .where("id", "=", id)
    .where("status", "=", "pending")
    .returningAll()
    .executeTakeFirst();

/**
 * Takes the lock a customer's payment of an order holds until its transaction ends, without
 * waiting: false when another request holds it (a retry already in progress).
 */
export const tryLockOrderPayment = async (trx: Executor, orderId: string): Promise<boolean> =>
  (
    await sql<{ locked: boolean }>`SELECT pg_try_advisory_xact_lock(hashtextextended(${`order-payment:${orderId}`}, 0)) AS locked`.execute(
      trx,
    )
  ).rows[0]?.locked === true;

/** The attempt that took the order's money: its latest succeeded payment (a refund gives part of it back). */
export const succeededPayment = (db: Executor, orderId: string): Promise<PaymentRow | undefined> =>
  db
    .selectFrom("payments")
    .selectAll()
    .where("order_id", "=", orderId)
    .where("status", "=", "succeeded")
    .orderBy("created_at", "desc")
    .orderBy("id", "desc")
    .limit(1)
    .executeTakeFirst();

/** The succeeded payment the processor knows under `reference` (its charge): what a processor's dispute names. */
export const succeededPaymentByReference = (db: Executor, reference: string): Promise<PaymentRow | undefined> =>
  db.selectFrom("payments").selectAll().where("processor_reference", "=", reference).where("status", "=", "succeeded").executeTakeFirst();

/**
 * What the payments list reads of the orders and customers of its payments, as expressions of its
 * one statement: given by those modules' steps through services.ts, since payments imports no feature
 * (customers and orders import it).
 */
export interface PaymentRelations {
  /** The checkout the order of the `orderId` column came from. */
  checkoutIdOfOrder: (orderId: Expression<string>) => AliasableExpression<string | null>;
  /** Whether the order of the `orderId` column came from one of the checkouts. */
  orderFromCheckoutIn: (orderId: Expression<string>, checkoutIds: readonly string[]) => Expression<SqlBool>;
  /** Whether the customer of the `customerId` column has one of the (lowercase) emails, case-insensitively. */
  customerEmailIn: (customerId: Expression<string>, emails: readonly string[]) => Expression<SqlBool>;
}

/** Which payments a list answers: the caller's organizations (null = all) and the query's filters. */
export interface PaymentFilter {
  allowed: OrganizationScope;
  organizationIds?: readonly string[];
  checkoutIds?: readonly string[];
  orderIds?: readonly string[];
  customerIds?: readonly string[];
  statuses?: readonly PaymentStatus[];
  methods?: readonly string[];
  customerEmails?: readonly string[];
}

type PaymentScope = ExpressionBuilder<Database & { p: PaymentsTable; m: PaymentMethodsTable }, "p" | "m">;

/**
 * The method an attempt used: the saved method's type, else `card` (the only kind the processor
 * seam charges: a checkout's one-off card is not saved, so nothing else is known of it).
 */
const METHOD = sql<string>`coalesce(m.type, 'card')`;

function paymentMatches(eb: PaymentScope, filter: PaymentFilter, relations: PaymentRelations): Expression<SqlBool> {
  const conditions: Expression<SqlBool>[] = [];
  if (filter.allowed !== null) conditions.push(eb("p.organization_id", "in", filter.allowed));
  if (given(filter.organizationIds)) conditions.push(eb("p.organization_id", "in", filter.organizationIds));
  if (given(filter.orderIds)) conditions.push(eb("p.order_id", "in", filter.orderIds));
  if (given(filter.customerIds)) conditions.push(eb("p.customer_id", "in", filter.customerIds));
  if (given(filter.statuses)) conditions.push(eb("p.status", "in", filter.statuses));
  if (given(filter.methods)) conditions.push(eb(METHOD, "in", filter.methods));
  if (given(filter.checkoutIds)) conditions.push(relations.orderFromCheckoutIn(eb.ref("p.order_id"), filter.checkoutIds));
  if (given(filter.customerEmails)) {
    const emails = filter.customerEmails.map((email) => email.toLowerCase());
    conditions.push(relations.customerEmailIn(eb.ref("p.customer_id"), emails));
  }
  return eb.and(conditions);
}

const paymentsView = (db: Executor, relations: PaymentRelations) =>
  db
    .selectFrom("payments as p")
    .leftJoin("payment_methods as m", "m.id", "p.payment_method_id")
    .selectAll("p")
    .select((eb) => [
      // Every payment charges an order (a non-null foreign key): the scalar read replaces the inner join.
      relations.checkoutIdOfOrder(eb.ref("p.order_id")).as("checkout_id"),
      "m.brand as method_brand",
      "m.last4 as method_last4",
      METHOD.as("method"),
    ]);
export type PaymentView = Awaited<ReturnType<ReturnType<typeof paymentsView>["executeTakeFirstOrThrow"]>>;

/** The hosted service's status order is the enum's: pending, succeeded, failed. */
const STATUS_RANK = sql<number>`CASE p.status WHEN 'pending' THEN 1 WHEN 'succeeded' THEN 2 ELSE 3 END`;

const paymentSortExpression = (key: PaymentSortKey) => {
  switch (key) {
    case "created_at":
      return sql.ref("p.created_at");
    case "status":
      return STATUS_RANK;
    case "amount":
      return sql.ref("p.amount");
    case "method":
      return METHOD;
  }
};

export const countPaymentViews = async (db: Executor, filter: PaymentFilter, relations: PaymentRelations): Promise<number> =>
  Number(
    (
      await db
        .selectFrom("payments as p")
        .leftJoin("payment_methods as m", "m.id", "p.payment_method_id")
        .where((eb) => paymentMatches(eb, filter, relations))
        .select((eb) => eb.fn.countAll<number>().as("count"))
        .executeTakeFirstOrThrow()
    ).count,
  );

/** A page of payments in the criteria's order, then the id in the first criterion's direction. */
export function listPaymentViews(
  db: Executor,
  filter: PaymentFilter,
  relations: PaymentRelations,
  sorting: readonly SortCriterion<PaymentSortKey>[],
  window: { offset: number; limit: number },
): Promise<PaymentView[]> {
  let query = paymentsView(db, relations).where((eb) => paymentMatches(eb, filter, relations));
  for (const { key, direction } of sorting) query = query.orderBy(paymentSortExpression(key), direction);
  return query
    .orderBy("p.id", sorting[0]?.direction ?? "desc")
    .offset(window.offset)
    .limit(window.limit)
    .execute();
}

export const findPaymentView = (
  db: Executor,
  id: string,
  allowed: OrganizationScope,
  relations: PaymentRelations,
): Promise<PaymentView | undefined> => {
  let query = paymentsView(db, relations).where("p.id", "=", id);
  if (allowed !== null) query = query.where("p.organization_id", "in", allowed);
  return query.executeTakeFirst();
};

// What an order's documents read of its payments, inside their own statement.

/** When the order of the caller's `orderId` column was paid: its last succeeded payment. */
export const paidAtOf = (orderId: Expression<string>) => {
  const eb = expressionBuilder<Database>();
  return eb
    .selectFrom("payments as p")
    .select((sub) => sub.fn.max("p.created_at").as("paid_at"))
    .where("p.order_id", "=", orderId)
    .where("p.status", "=", "succeeded");
};
