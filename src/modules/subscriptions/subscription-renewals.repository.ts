import { sql } from "kysely";
import type { Executor } from "../../db/database.ts";
import type { SubscriptionRow, SubscriptionStatus } from "./subscriptions.table.ts";

// The renewals' queries: what is due (claimed with SKIP LOCKED, so sweeps run side by side) and the
// few facts a renewal reads about the subscription's order, customer, product and discount.

/** What a renewal cycles into: billable rows at or past their period end. */
const BILLABLE: readonly SubscriptionStatus[] = ["trialing", "active", "past_due"];

/**
 * The next subscription due for renewal, locked; rows another process holds are skipped, so
 * several processes sweep side by side and each renews a given period once.
 */
export const claimDueSubscription = (db: Executor, now: Date, organizationId?: string): Promise<SubscriptionRow | undefined> => {
  let query = db
    .selectFrom("subscriptions")
    .selectAll()
    .where("status", "in", BILLABLE)
    .where("started_at", "is not", null)
    .where("current_period_end", "<=", now);
  if (organizationId) query = query.where("organization_id", "=", organizationId);
  return query.orderBy("current_period_end").limit(1).forUpdate().skipLocked().executeTakeFirst();
};

/** The next paused subscription whose `resumes_at` has come, locked. */
export const claimDueResume = (db: Executor, now: Date, organizationId?: string): Promise<SubscriptionRow | undefined> => {
  let query = db.selectFrom("subscriptions").selectAll().where("status", "=", "paused").where("resumes_at", "<=", now);
  if (organizationId) query = query.where("organization_id", "=", organizationId);
  return query.orderBy("resumes_at").limit(1).forUpdate().skipLocked().executeTakeFirst();
};

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

/**
 * Organizations with renewals, resumes or dunning retries due at their own time (real time plus
 * their sandbox test clock's offset), with that offset.
 */
export const organizationsWithDueWork = (db: Executor, now: Date) =>
  db
    .selectFrom("organizations as o")
    .select(["o.id", "o.clock_offset_ms"])
    .where((eb) => {
      const organizationNow = sql<Date>`${now}::timestamptz + o.clock_offset_ms * interval '1 millisecond'`;
      return eb.or([
        eb.exists(
          eb
            .selectFrom("subscriptions as s")
            .select("s.id")
            .whereRef("s.organization_id", "=", "o.id")
            .where("s.status", "in", BILLABLE)
            .where("s.started_at", "is not", null)
            .where("s.current_period_end", "<=", organizationNow),
        ),
        eb.exists(
          eb
            .selectFrom("subscriptions as s")
            .select("s.id")
            .whereRef("s.organization_id", "=", "o.id")
            .where("s.status", "=", "paused")
            .where("s.resumes_at", "<=", organizationNow),
        ),
        eb.exists(
          eb
            .selectFrom("orders as r")
            .select("r.id")
            .whereRef("r.organization_id", "=", "o.id")
            .where("r.status", "=", "pending")
            .where("r.subscription_id", "is not", null)
            .where("r.next_payment_attempt_at", "<=", organizationNow),
        ),
      ]);
    })
    .execute();

/** A renewal's discount, whatever its state now: whether it still applies is the renewal's rule. */
export const findDiscountById = (db: Executor, id: string) =>
  db.selectFrom("discounts").selectAll().where("id", "=", id).executeTakeFirst();

/** What an order of the subscription's product needs: its name and whether tax applies. */
export const findProductBilling = (db: Executor, productId: string) =>
  db.selectFrom("products").select(["name", "is_tax_applicable"]).where("id", "=", productId).executeTakeFirstOrThrow();

/** The subscriber (deleted or not: a subscription bills its customer to the end). */
export const findSubscriber = (db: Executor, customerId: string) =>
  db.selectFrom("customers").selectAll().where("id", "=", customerId).executeTakeFirstOrThrow();

/** The subscription an order bills, if any. */
export const subscriptionIdOfOrder = async (db: Executor, orderId: string): Promise<string | null> =>
  (await db.selectFrom("orders").select("subscription_id").where("id", "=", orderId).executeTakeFirst())?.subscription_id ?? null;

/** The orders of a subscription still waiting for a payment. */
export const pendingOrdersOf = (db: Executor, subscriptionId: string) =>
  db.selectFrom("orders").selectAll().where("subscription_id", "=", subscriptionId).where("status", "=", "pending").execute();

/** The method the customer pays with when a subscription has none of its own. */
export const defaultPaymentMethodId = async (db: Executor, customerId: string): Promise<string | null> =>
  (await db.selectFrom("customers").select("default_payment_method_id").where("id", "=", customerId).executeTakeFirstOrThrow())
    .default_payment_method_id;
