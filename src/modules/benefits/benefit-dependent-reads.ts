import { boundOnce } from "../../values/bound-once.ts";
import type { Expression, RawBuilder, SqlBool } from "kysely";
import type { Executor } from "../../db/database.ts";

/**
 * What benefits read of the modules built on them (meters, orders, subscriptions, products), mostly as parts
 * of benefits' own statements, so each read stays one statement. Those modules import benefits, so
 * benefits cannot import their steps: it declares what it needs here, and the composition root
 * (services.ts) binds their steps once for the process, before any benefit or grant is read.
 */
export interface BenefitDependentReads {
  /** Whether the organization has this meter (a meter-credit benefit's). */
  meterExists: (db: Executor, organizationId: string, meterId: string) => Promise<boolean>;
  /** Whether the order of the caller's `orderId` column came from one of the checkouts. */
  orderFromCheckoutIn: (orderId: Expression<string | null>, checkoutIds: readonly string[]) => Expression<SqlBool>;
  /** Whether the subscription of the caller's `subscriptionId` column came from one of the checkouts. */
  subscriptionFromCheckoutIn: (subscriptionId: Expression<string | null>, checkoutIds: readonly string[]) => Expression<SqlBool>;
  /** The product of the order of the caller's `orderId` column. */
  productIdOfOrder: (orderId: Expression<string | null>) => RawBuilder<string | null>;
  /** The product the subscription of the caller's `subscriptionId` column is on now. */
  productIdOfSubscription: (subscriptionId: Expression<string | null>) => RawBuilder<string | null>;
  /** The product whose benefits that subscription grants its buyer: null when seat-based (its claimed seats hold them). */
  buyerProductIdOfSubscription: (subscriptionId: Expression<string | null>) => RawBuilder<string | null>;
  /** The place of the caller's `benefitId` on the product of its `productId` (null when the product does not carry it). */
  benefitPositionOnProduct: (benefitId: Expression<string>, productId: Expression<string | null>) => RawBuilder<number | null>;
  /** The benefits the product of the caller's `productId` carries, a subquery. */
  benefitIdsOfProduct: (productId: Expression<string | null>) => Expression<string>;
  /** The seats of a subscription, a subquery (their holders' grants follow it as the buyer's do). */
  seatIdsOfSubscription: (subscriptionId: string) => Expression<string>;
  /** The subscription of the seat of the caller's `seatId` column: null for an order's seat or no seat. */
  subscriptionIdOfSeat: (seatId: Expression<string | null>) => RawBuilder<string | null>;
}

const reads = boundOnce<BenefitDependentReads>("benefits");

/** Called once, by the composition root. */
export const bindBenefitDependentReads = reads.bind;

/** The bound reads. */
export const benefitDependentReads = reads.get;
