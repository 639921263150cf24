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

let bound: OrderDependentReads | undefined;

/** Called once, by the composition root. */
export function bindOrderDependentReads(reads: OrderDependentReads): void {
  bound = reads;
}

/** The bound reads; a read of an order before the composition root ran is a wiring mistake. */
export function orderDependentReads(): OrderDependentReads {
  if (!bound) throw new Error("orders read before services.ts bound their dependent reads");
  return bound;
}
