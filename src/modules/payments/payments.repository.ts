import { sql, type Insertable } from "kysely";
import type { Executor } from "../../db/database.ts";
import type { SavedPaymentMethod } from "./payment-processor.ts";
import type { PaymentMethodRow, PaymentRow, PaymentsTable, PaymentStatus, PaymentTrigger } from "./payments.table.ts";

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
