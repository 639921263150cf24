import { expressionBuilder, sql, type Expression, type RawBuilder, type SqlBool } from "kysely";
import type { Database, Executor } from "../../db/database.ts";

/**
 * The dunning retries of renewal orders: a pending order of a subscription whose payment failed
 * waits with `next_payment_attempt_at` set. The renewals claim what is due (with SKIP LOCKED, so
 * sweeps run side by side), the test clock and the payment-method changes ask what waits.
 */

/** The earliest dunning retry of the organization's pending renewal orders, as an expression of the caller's statement. */
export const nextPaymentRetryAt = (organizationId: string): RawBuilder<Date | null> =>
  sql<Date | null>`(SELECT min(next_payment_attempt_at) FROM orders
        WHERE organization_id = ${organizationId} AND status = 'pending' AND subscription_id IS NOT NULL)`;

/** The next pending order whose dunning retry is due, locked (skipping rows another process holds). */
export const claimDueRetry = (db: Executor, now: Date, organizationId?: string) => {
  let query = db
    .selectFrom("orders")
    .selectAll()
    .where("status", "=", "pending")
    .where("subscription_id", "is not", null)
    .where("next_payment_attempt_at", "<=", now);
  if (organizationId) query = query.where("organization_id", "=", organizationId);
  return query.orderBy("next_payment_attempt_at").limit(1).forUpdate().skipLocked().executeTakeFirst();
};

/** Whether another order of the subscription still waits for a dunning retry. */
export const hasOtherDunningOrder = async (db: Executor, subscriptionId: string, exceptOrderId: string): Promise<boolean> =>
  (await db
    .selectFrom("orders")
    .select("id")
    .where("subscription_id", "=", subscriptionId)
    .where("status", "=", "pending")
    .where("next_payment_attempt_at", "is not", null)
    .where("id", "<>", exceptOrderId)
    .executeTakeFirst()) !== undefined;

/** The orders of a subscription still waiting for a payment. */
export const pendingOrdersOf = (db: Executor, subscriptionId: string) =>
  db.selectFrom("orders").selectAll().where("subscription_id", "=", subscriptionId).where("status", "=", "pending").execute();

/** Whether an order of the organization's subscriptions has its dunning retry due at `at`. */
export const paymentRetryDueExists = (organizationId: Expression<string>, at: Expression<Date>): Expression<SqlBool> => {
  const eb = expressionBuilder<Database>();
  return eb.exists(
    eb
      .selectFrom("orders as r")
      .select("r.id")
      .where("r.organization_id", "=", organizationId)
      .where("r.status", "=", "pending")
      .where("r.subscription_id", "is not", null)
      .where("r.next_payment_attempt_at", "<=", at),
  );
};

/** Orders waiting for a dunning retry (pending, with a next attempt scheduled), a table to join under `alias`. */
export const ordersAwaitingRetry = <A extends string>(alias: A) =>
  expressionBuilder<Database>()
    .selectFrom("orders")
    .select(["id", "subscription_id", "customer_id", "created_at"])
    .where("status", "=", "pending")
    .where("next_payment_attempt_at", "is not", null)
    .as(alias);
