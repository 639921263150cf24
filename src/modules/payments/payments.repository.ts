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
import type { SavedPaymentMethod } from "../../adapters/payment-processors/payment-processor.ts";
import type { PaymentMethodRow, PaymentMethodsTable, PaymentRow, PaymentsTable, PaymentStatus, PaymentTrigger } from "./payments.table.ts";

/** Stores a method the processor saved for the customer: its handle and display facts only. */
export const savePaymentMethod = (
  db: Executor,
  input: { organizationId: string; customerId: string; method: SavedPaymentMethod; now: Date },
): Promise<PaymentMethodRow> =>
  db
    .insertInto("payment_methods")
    .values({
      created_at: input.now,
      modified_at: null,
      organization_id: input.organizationId,
      customer_id: input.customerId,
      processor_reference: input.method.reference,
      processor_customer_reference: input.method.customerReference,
      type: input.method.type,
      brand: input.method.brand,
      last4: input.method.last4,
      exp_month: input.method.expMonth,
      exp_year: input.method.expYear,
      deleted_at: null,
    })
    .returningAll()
    .executeTakeFirstOrThrow();

const liveMethods = (db: Executor, customerId: string) =>
  db.selectFrom("payment_methods").where("customer_id", "=", customerId).where("deleted_at", "is", null);

/** A live method of the customer (deleted methods are never charged). */
export const findPaymentMethod = (db: Executor, id: string, customerId: string): Promise<PaymentMethodRow | undefined> =>
  liveMethods(db, customerId).selectAll().where("id", "=", id).executeTakeFirst();

export const countPaymentMethods = async (db: Executor, customerId: string): Promise<number> =>
  Number(
    (
      await liveMethods(db, customerId)
        .select((eb) => eb.fn.countAll<number>().as("count"))
        .executeTakeFirstOrThrow()
    ).count,
  );

/** The customer's live methods, newest first (the id breaks ties so pages neither repeat nor skip). */
export const listPaymentMethods = (
  db: Executor,
  customerId: string,
  window: { offset: number; limit: number; exceptId?: string },
): Promise<PaymentMethodRow[]> => {
  let query = liveMethods(db, customerId).selectAll();
  if (window.exceptId) query = query.where("id", "<>", window.exceptId);
  return query.orderBy("created_at", "desc").orderBy("id", "desc").offset(window.offset).limit(window.limit).execute();
};

export const deletePaymentMethod = (db: Executor, id: string, now: Date): Promise<PaymentMethodRow> =>
  db
    .updateTable("payment_methods")
    .set({ deleted_at: now, modified_at: now })
    .where("id", "=", id)
    .returningAll()
    .executeTakeFirstOrThrow();

/** The live methods saved under a processor's handle (one card saved by two customers is two rows). */
export const liveMethodsByReference = (db: Executor, reference: string): Promise<PaymentMethodRow[]> =>
  db.selectFrom("payment_methods").selectAll().where("processor_reference", "=", reference).where("deleted_at", "is", null).execute();

/** A card's display facts as the processor now reports them (its network sent a new expiry or number). */
export const refreshPaymentMethods = async (db: Executor, method: SavedPaymentMethod, now: Date): Promise<void> => {
  await db
    .updateTable("payment_methods")
    .set({ brand: method.brand, last4: method.last4, exp_month: method.expMonth, exp_year: method.expYear, modified_at: now })
    .where("processor_reference", "=", method.reference)
    .where("deleted_at", "is", null)
    .execute();
};

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

/** The processor's idempotency key of an order's next attempt: the order and the attempt's number. */
export const nextAttemptKey = async (db: Executor, orderId: string): Promise<string> =>
  `${orderId}:${(await countPayments(db, orderId)) + 1}`;

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
