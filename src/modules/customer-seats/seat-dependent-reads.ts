import type { Expression } from "kysely";
import type { Executor } from "../../db/database.ts";
import type { OrganizationScope } from "../../http/auth.ts";
import { boundOnce } from "../../values/bound-once.ts";

/** What seats read of a subscription: whose it is, which product, how many seats. */
export interface SeatSubscription {
  organization_id: string;
  customer_id: string;
  product_id: string;
  seats: number | null;
}

/**
 * What seats read of subscriptions, which revoke their seats when they leave active and so import
 * seats: seats cannot import their steps, so the composition root (services.ts) binds them here once.
 */
export interface SeatDependentReads {
  findSubscription: (
    db: Executor,
    id: string,
    visibility: { allowed: OrganizationScope; customerId?: string },
  ) => Promise<SeatSubscription | undefined>;
  /** The same, its row locked for the caller's transaction. */
  findSubscriptionForUpdate: SeatDependentReads["findSubscription"];
  /** The subscriptions on a product, a subquery (their claimed seats follow its benefits). */
  subscriptionIdsOfProduct: (productId: string) => Expression<string>;
}

const reads = boundOnce<SeatDependentReads>("customer seats");

/** Called once, by the composition root. */
export const bindSeatDependentReads = reads.bind;

/** The bound reads. */
export const seatDependentReads = reads.get;
