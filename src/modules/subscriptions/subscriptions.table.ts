import type { ColumnType, Generated, Selectable } from "kysely";
import type { Metadata, RecurringInterval } from "../../schema/primitives.ts";

type Json<T> = ColumnType<T, string | undefined, string>;

export type SubscriptionStatus =
  "incomplete" | "incomplete_expired" | "trialing" | "active" | "past_due" | "canceled" | "unpaid" | "paused";

export type CancellationReason =
  "customer_service" | "low_quality" | "missing_features" | "switched_service" | "too_complex" | "too_expensive" | "unused" | "other";

export interface SubscriptionsTable {
  id: Generated<string>;
  created_at: Generated<Date>;
  modified_at: Date | null;
  organization_id: string;
  customer_id: string;
  product_id: string;
  checkout_id: string | null;
  discount_id: string | null;
  /** Start of the first billed period: a discount's duration counts from it. */
  discount_applied_at: Date | null;
  status: SubscriptionStatus;
  /** What a period bills before tax: the frozen prices, less the discount. */
  amount: number;
  currency: string;
  tax_behavior: "inclusive" | "exclusive" | null;
  recurring_interval: RecurringInterval;
  recurring_interval_count: number;
  /** The day of month periods end on, clamped to shorter months. */
  anchor_day: number;
  current_period_start: Date;
  current_period_end: Date;
  trial_start: Date | null;
  trial_end: Date | null;
  cancel_at_period_end: Generated<boolean>;
  canceled_at: Date | null;
  started_at: Date | null;
  ends_at: Date | null;
  ended_at: Date | null;
  past_due_at: Date | null;
  pause_at_period_end: Generated<boolean>;
  paused_at: Date | null;
  resumes_at: Date | null;
  seats: number | null;
  /** The saved method renewals charge; the customer's default when null. */
  payment_method_id: Generated<string | null>;
  customer_cancellation_reason: CancellationReason | null;
  customer_cancellation_comment: string | null;
  metadata: Json<Metadata>;
  custom_field_data: Json<Record<string, string | number | boolean | null>>;
  /** A product or seat change scheduled for the period end. */
  pending_update: ColumnType<PendingUpdate | null, string | null | undefined, string | null>;
}
export type SubscriptionRow = Selectable<SubscriptionsTable>;

export interface PendingUpdate {
  id: string;
  created_at: string;
  applies_at: string;
  product_id: string | null;
  seats: number | null;
}

export interface SubscriptionPricesTable {
  subscription_id: string;
  product_price_id: string;
  organization_id: string;
  /** What the price bills per period, frozen at purchase (seats included); null for metered prices. */
  amount: number | null;
  position: number;
}
export type SubscriptionPriceRow = Selectable<SubscriptionPricesTable>;

export interface SubscriptionBillingEntriesTable {
  id: Generated<string>;
  created_at: Generated<Date>;
  organization_id: string;
  subscription_id: string;
  product_price_id: string | null;
  label: string;
  /** Positive: a debit; negative: a credit. */
  amount: number;
  /** The order that billed it; null while it waits. */
  order_id: string | null;
}

/** What a closed period was charged for one metered price (docs/decisions.md, "Metered billing"). */
export interface SubscriptionUsageChargesTable {
  id: Generated<string>;
  created_at: Date;
  modified_at: Date | null;
  organization_id: string;
  subscription_id: string;
  product_price_id: string;
  period_start: Date;
  period_end: Date;
  /** The quantity read at billing (raised when late events are billed), an exact decimal string. */
  quantity: string;
  /** What was charged for it in minor units, late lines included. */
  amount: number;
  /** The credited units subtracted from the quantity (late usage is billed against the same), an exact decimal string. */
  credited_units: ColumnType<string, string | undefined, string>;
}
