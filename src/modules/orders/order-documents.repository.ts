import type { Executor } from "../../db/database.ts";
import { customerLocaleOf } from "../customers/customers.steps.ts";
import { paidAtOf } from "../payments/payments.steps.ts";
import { orderDependentReads } from "./order-dependent-reads.ts";

/**
 * Records the first receipt request of an order. The guard makes concurrent requests race on one
 * row: exactly one of them sees `true` and enqueues the render.
 */
export async function markReceiptRequested(db: Executor, orderId: string, now: Date): Promise<boolean> {
  const result = await db
    .updateTable("orders")
    .set({ receipt_requested_at: now })
    .where("id", "=", orderId)
    .where("receipt_requested_at", "is", null)
    .where("receipt_path", "is", null)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/**
 * What an order's documents need beyond the order: the checkout it came from (a renewal's is its
 * subscription's) for the buyer's locale and business flag, the customer's locale as the fallback,
 * and when the order was paid (its last succeeded payment).
 */
export const orderDocumentContext = (db: Executor, orderId: string) => {
  const { subscriptionCheckouts, checkoutBuyers } = orderDependentReads();
  return db
    .selectFrom("orders as o")
    .leftJoin(subscriptionCheckouts("s"), "s.id", "o.subscription_id")
    .leftJoin(checkoutBuyers("ch"), (join) => join.on((eb) => eb("ch.id", "=", eb.fn.coalesce("o.checkout_id", "s.checkout_id"))))
    .select((eb) => [
      "ch.locale as checkout_locale",
      "ch.is_business_customer",
      // Every order has its customer (a non-null foreign key): the scalar read replaces the inner join.
      customerLocaleOf(eb.ref("o.customer_id")).as("customer_locale"),
      paidAtOf(eb.ref("o.id")).as("paid_at"),
    ])
    .where("o.id", "=", orderId)
    .executeTakeFirstOrThrow();
};
