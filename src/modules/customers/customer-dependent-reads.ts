import { boundOnce } from "../../values/bound-once.ts";
import type { Expression, RawBuilder, SqlBool } from "kysely";

/**
 * What customers read of the modules built on them (events, subscriptions), as parts of customers'
 * own statements, so each read stays one statement. Those modules import customers, so customers
 * cannot import their steps: it declares what it needs here, and the composition root
 * (services.ts) binds their steps' expressions once for the process, before any customer is read.
 */
export interface CustomerDependentReads {
  /** The timestamp of the organization's earliest user event whose `customer` column is `value` (null when there is none). */
  earliestUserEventAt: (
    organizationId: Expression<string>,
    customer: "customer_id" | "external_customer_id",
    value: Expression<string | null>,
  ) => RawBuilder<Date | null>;
  /** Whether the caller's `customerId` column has a billable (trialing, active or past_due) subscription. */
  hasBillableSubscription: (customerId: Expression<string>) => Expression<SqlBool>;
}

const reads = boundOnce<CustomerDependentReads>("customers");

/** Called once, by the composition root. */
export const bindCustomerDependentReads = reads.bind;

/** The bound reads. */
export const customerDependentReads = reads.get;
