import type { Insertable } from "kysely";
import type { Executor } from "../../db/database.ts";
import type { PaymentMethodRow, PaymentMethodsTable, PaymentRow, PaymentsTable, PaymentTrigger } from "./payments.table.ts";

export const insertPaymentMethod = (db: Executor, values: Insertable<PaymentMethodsTable>): Promise<PaymentMethodRow> =>
  db.insertInto("payment_methods").values(values).returningAll().executeTakeFirstOrThrow();

/** A live method of the customer (deleted methods are never charged). */
export const findPaymentMethod = (db: Executor, id: string, customerId: string): Promise<PaymentMethodRow | undefined> =>
  db
    .selectFrom("payment_methods")
    .selectAll()
    .where("id", "=", id)
    .where("customer_id", "=", customerId)
    .where("deleted_at", "is", null)
    .executeTakeFirst();

export const insertPayment = (db: Executor, values: Insertable<PaymentsTable>): Promise<PaymentRow> =>
  db.insertInto("payments").values(values).returningAll().executeTakeFirstOrThrow();

/** Every attempt recorded for an order: the next attempt's number, hence its idempotency key. */
export async function countPayments(db: Executor, orderId: string): Promise<number> {
  const row = await db
    .selectFrom("payments")
    .select((eb) => eb.fn.countAll<number>().as("count"))
    .where("order_id", "=", orderId)
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

/** Failed attempts of an order started by the given triggers: what dunning counts. */
export async function countFailedPayments(db: Executor, orderId: string, triggers: readonly PaymentTrigger[]): Promise<number> {
  const row = await db
    .selectFrom("payments")
    .select((eb) => eb.fn.countAll<number>().as("count"))
    .where("order_id", "=", orderId)
    .where("status", "=", "failed")
    .where("trigger", "in", triggers)
    .executeTakeFirstOrThrow();
  return Number(row.count);
}
