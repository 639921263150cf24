import type { Generated, Selectable } from "kysely";

export interface PaymentMethodsTable {
  id: Generated<string>;
  created_at: Generated<Date>;
  modified_at: Date | null;
  organization_id: string;
  customer_id: string;
  /** The processor's handle of the method; no card data is ever stored. */
  processor_reference: string;
  /** The processor's customer the method is attached to (Stripe needs both to charge it). */
  processor_customer_reference: string | null;
  type: string;
  brand: string | null;
  last4: string | null;
  exp_month: number | null;
  exp_year: number | null;
  deleted_at: Date | null;
}
export type PaymentMethodRow = Selectable<PaymentMethodsTable>;

export type PaymentStatus = "pending" | "succeeded" | "failed";
export type PaymentTrigger = "purchase" | "subscription_cycle" | "retry_dunning" | "retry_customer";

export interface PaymentsTable {
  id: Generated<string>;
  created_at: Generated<Date>;
  modified_at: Date | null;
  organization_id: string;
  customer_id: string;
  order_id: string;
  payment_method_id: string | null;
  status: PaymentStatus;
  trigger: PaymentTrigger;
  amount: number;
  currency: string;
  processor_reference: string | null;
  decline_message: string | null;
  /** The processor's decline code (Stripe's vocabulary), when it gave one. */
  decline_reason: string | null;
}
export type PaymentRow = Selectable<PaymentsTable>;
