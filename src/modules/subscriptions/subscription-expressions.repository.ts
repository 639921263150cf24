import { expressionBuilder, sql, type Expression, type RawBuilder } from "kysely";
import { jsonObjectFrom } from "kysely/helpers/postgres";
import type { Database, SubqueryScope } from "../../db/database.ts";

/**
 * Subscriptions as other modules' statements embed them: expressions and sub-selects over the
 * caller's column, so a reader below subscriptions (orders, benefits, customers: services.ts binds
 * these to them) or beside it keeps its one statement.
 */

// The test clock's view of an organization's subscriptions.

/**
 * The earliest period end (renewal, trial end, end of a canceled period) or resume of the
 * organization's subscriptions, as an expression of the caller's statement.
 */
export const nextSubscriptionDueAt = (organizationId: string): RawBuilder<Date | null> =>
  sql<Date | null>`least(
      (SELECT min(current_period_end) FROM subscriptions
        WHERE organization_id = ${organizationId} AND status IN ('trialing','active','past_due') AND started_at IS NOT NULL),
      (SELECT min(resumes_at) FROM subscriptions WHERE organization_id = ${organizationId} AND status = 'paused'))`;

// What orders read of their subscriptions, inside their own statements (orders is below
// subscriptions: services.ts hands these to it, `orders/order-dependent-reads.ts`).

/** The subscription of the caller's `subscriptionId` column, as a JSON object (null when there is none). */
export const subscriptionJson = (subscriptionId: Expression<string | null>) =>
  jsonObjectFrom(expressionBuilder<Database>().selectFrom("subscriptions as s").selectAll("s").where("s.id", "=", subscriptionId));

/** The checkout each subscription came from, a table to join under `alias`. */
export const subscriptionCheckouts = <A extends string>(alias: A) =>
  expressionBuilder<Database>().selectFrom("subscriptions").select(["id", "checkout_id"]).as(alias);

// What benefit grants read of their subscriptions, inside their own statements (benefits is below
// subscriptions: services.ts hands these to it, `benefits/benefit-dependent-reads.ts`).

/** Whether the subscription of the caller's `subscriptionId` column came from one of the checkouts. */
export const subscriptionFromCheckoutIn = (subscriptionId: Expression<string | null>, checkoutIds: readonly string[]) => {
  const eb = expressionBuilder<Database>();
  return eb.exists(
    eb.selectFrom("subscriptions as s").select("s.id").where("s.id", "=", subscriptionId).where("s.checkout_id", "in", checkoutIds),
  );
};

/** The product the subscription of the caller's `subscriptionId` column is on now. */
export const productIdOfSubscription = (subscriptionId: Expression<string | null>): RawBuilder<string | null> =>
  sql<string | null>`(SELECT s.product_id FROM subscriptions s WHERE s.id = ${subscriptionId})`;

/** The subscriptions on a product, a subquery (their claimed seats follow its benefits). */
export const subscriptionIdsOfProduct = (productId: string): Expression<string> =>
  expressionBuilder<Database>().selectFrom("subscriptions as s").select("s.id").where("s.product_id", "=", productId).$asScalar();

/**
 * The product whose benefits the subscription of the caller's `subscriptionId` column grants its
 * buyer: its product, none (null) for a seat-based one, whose benefits go to its claimed seats' holders.
 */
export const buyerProductIdOfSubscription = (subscriptionId: Expression<string | null>): RawBuilder<string | null> =>
  sql<string | null>`(SELECT s.product_id FROM subscriptions s WHERE s.id = ${subscriptionId} AND s.seats IS NULL)`;

// What customers read of their subscriptions, inside their own statements (customers is below
// subscriptions: services.ts hands this to it, `customers/customer-dependent-reads.ts`).

/**
 * Whether the caller's `customerId` column has a billable subscription: trialing, active or
 * past_due (the hosted service's rule for an active customer), as a condition of the caller's statement.
 */
export const hasBillableSubscription = (customerId: Expression<string>) => {
  const eb = expressionBuilder<Database>();
  return eb.exists(
    eb
      .selectFrom("subscriptions as s")
      .select("s.id")
      .where("s.customer_id", "=", customerId)
      .where("s.status", "in", ["trialing", "active", "past_due"]),
  );
};

// Subscriptions as other modules embed them in their own statements.

/** A sub-select of a customer's subscriptions (`s`), through `subscriptions_customer_idx`, for a reader to filter and pick columns. */
export const subscriptionsOfCustomer = (eb: SubqueryScope, customerId: Expression<string>) =>
  eb.selectFrom("subscriptions as s").where("s.customer_id", "=", customerId);
