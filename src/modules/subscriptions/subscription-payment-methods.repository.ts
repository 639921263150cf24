import type { Executor } from "../../db/database.ts";
import { ordersAwaitingRetry } from "../orders/orders.steps.ts";
import type { OrderRow } from "../orders/orders.table.ts";

/**
 * The customer's subscriptions that will still be charged on `methodId` (their own method, or the
 * customer's default when they have none): the hosted service's rule is every billable one except an
 * active subscription ending at period end without metered prices (nothing more to bill), and a
 * paused one that resumes.
 */
export const subscriptionsNeedingMethod = (
  db: Executor,
  customerId: string,
  methodId: string,
  isDefault: boolean,
): Promise<{ id: string }[]> =>
  db
    .selectFrom("subscriptions as s")
    .select("s.id")
    .where("s.customer_id", "=", customerId)
    .where((eb) => eb.or([eb("s.payment_method_id", "=", methodId), ...(isDefault ? [eb("s.payment_method_id", "is", null)] : [])]))
    .where((eb) =>
      eb.or([
        eb("s.status", "in", ["trialing", "past_due"]),
        eb.and([eb("s.status", "=", "paused"), eb("s.resumes_at", "is not", null)]),
        eb.and([
          eb("s.status", "=", "active"),
          eb.or([
            eb("s.cancel_at_period_end", "=", false),
            eb.exists(
              eb
                .selectFrom("subscription_prices as sp")
                .select("sp.subscription_id")
                .whereRef("sp.subscription_id", "=", "s.id")
                .where("sp.amount", "is", null),
            ),
          ]),
        ]),
      ]),
    )
    .execute();

/**
 * Points subscriptions at another saved method (null: the customer's default): those named, or
 * every one not yet ended that points at `from` (a method being deleted).
 */
export async function moveSubscriptionsToMethod(
  db: Executor,
  which: { ids: readonly string[] } | { from: string },
  methodId: string | null,
  now: Date,
): Promise<void> {
  if ("ids" in which && which.ids.length === 0) return;
  let query = db.updateTable("subscriptions").set({ payment_method_id: methodId, modified_at: now });
  query =
    "ids" in which ? query.where("id", "in", which.ids) : query.where("payment_method_id", "=", which.from).where("ended_at", "is", null);
  await query.execute();
}

/**
 * The customer's orders still in dunning: pending, with a next attempt scheduled, of a past-due
 * subscription (an exhausted one has been revoked and its orders voided). Oldest first.
 */
export const dunningOrdersOfCustomer = (db: Executor, customerId: string): Promise<Pick<OrderRow, "id" | "subscription_id">[]> =>
  db
    .selectFrom(ordersAwaitingRetry("o"))
    .innerJoin("subscriptions as s", "s.id", "o.subscription_id")
    .select(["o.id", "o.subscription_id"])
    .where("o.customer_id", "=", customerId)
    .where("s.status", "=", "past_due")
    .orderBy("o.created_at")
    .orderBy("o.id")
    .execute();
