import type { Deps } from "../context.ts";
import type { PaymentProcessor } from "../adapters/payment-processors/payment-processor.ts";
import type { TaxEngine } from "../adapters/tax-engine/tax.engine.ts";
import type { OrderRow } from "../modules/orders/orders.table.ts";
import type { SubscriptionRow } from "../modules/subscriptions/subscriptions.table.ts";

// What the subscription flows share: their context, and a charge's two locked rows.

/** What the subscription flows run on: the application's dependencies, the processor and the tax engine. */
export interface SubscriptionFlowContext {
  deps: Deps;
  payments: PaymentProcessor;
  taxEngine: TaxEngine;
}

/** A subscription and one of its orders, both locked. */
export interface LockedCharge {
  row: SubscriptionRow;
  order: OrderRow;
}
