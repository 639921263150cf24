import { boundOnce } from "../../values/bound-once.ts";
import type { AliasableExpression, AliasedSelectQueryBuilder, Expression, Selectable, ShallowDehydrateObject } from "kysely";
import type { Database } from "../../db/database.ts";

type Row<T extends keyof Database> = Selectable<Database[T]>;

/**
 * What orders read of the modules built on them (subscriptions, checkouts, refunds), as parts of
 * orders' own statements, so each read stays one statement. Those modules import orders, so orders
 * cannot import their steps: it declares what it needs here, and the composition root
 * (services.ts) binds their steps' expressions once for the process, before any order is read.
 */
export interface OrderDependentReads {
  /** The subscription of the caller's `subscriptionId` column, as a JSON object (null when there is none). */
  subscriptionJson: (subscriptionId: Expression<string | null>) => AliasableExpression<ShallowDehydrateObject<Row<"subscriptions">> | null>;
  /** The checkout each subscription came from, a table to join under `alias`. */
  subscriptionCheckouts: <A extends string>(alias: A) => AliasedSelectQueryBuilder<Pick<Row<"subscriptions">, "id" | "checkout_id">, A>;
  /** What a document prints of a checkout (the buyer's locale and business flag), a table to join under `alias`. */
  checkoutBuyers: <A extends string>(
    alias: A,
  ) => AliasedSelectQueryBuilder<Pick<Row<"checkouts">, "id" | "locale" | "is_business_customer">, A>;
  /** The succeeded refunds, a table to join under `alias`. */
  succeededRefunds: <A extends string>(
    alias: A,
  ) => AliasedSelectQueryBuilder<Pick<Row<"refunds">, "id" | "order_id" | "created_at" | "amount" | "tax_amount" | "currency">, A>;
}

const reads = boundOnce<OrderDependentReads>("orders");

/** Called once, by the composition root. */
export const bindOrderDependentReads = reads.bind;

/** The bound reads. */
export const orderDependentReads = reads.get;
