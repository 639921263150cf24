import { expressionBuilder } from "kysely";
import type { Database, Executor } from "../../db/database.ts";
import { paymentRetryDueExists } from "../orders/orders.steps.ts";
import { organizationsWithDue } from "../organizations/organizations.steps.ts";
import type { SubscriptionRow, SubscriptionStatus } from "./subscriptions.table.ts";

// The renewals' queries: what is due (claimed with SKIP LOCKED, so sweeps run side by side). The
// facts a renewal reads about the subscription's orders, customer, product and discount are their
// modules' steps.

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

/**
 * Organizations with renewals, resumes or dunning retries due at their own time (real time plus
 * their sandbox test clock's offset), with that offset.
 */
export const organizationsWithDueWork = (db: Executor, now: Date) =>
  organizationsWithDue(db, now, (organizationId, organizationNow) => {
    const eb = expressionBuilder<Database>();
    return eb.or([
      eb.exists(
        eb
          .selectFrom("subscriptions as s")
          .select("s.id")
          .where("s.organization_id", "=", organizationId)
          .where("s.status", "in", BILLABLE)
          .where("s.started_at", "is not", null)
          .where("s.current_period_end", "<=", organizationNow),
      ),
      eb.exists(
        eb
          .selectFrom("subscriptions as s")
          .select("s.id")
          .where("s.organization_id", "=", organizationId)
          .where("s.status", "=", "paused")
          .where("s.resumes_at", "<=", organizationNow),
      ),
      paymentRetryDueExists(organizationId, organizationNow),
    ]);
  });

/**
 * The customer's subscriptions not yet ended (billable or paused), locked by id as a renewal's
 * claim locks them: a customer's deletion waits for a renewal holding one, and a renewal skips
 * those the deletion holds.
 */
export const lockOpenSubscriptionsOfCustomer = (db: Executor, customerId: string): Promise<SubscriptionRow[]> =>
  db
    .selectFrom("subscriptions")
    .selectAll()
    .where("customer_id", "=", customerId)
    .where("status", "in", [...BILLABLE, "paused"])
    .where("ended_at", "is", null)
    .orderBy("id")
    .forUpdate()
    .execute();
