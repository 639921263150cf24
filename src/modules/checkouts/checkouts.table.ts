import type { ColumnType, Generated, Selectable } from "kysely";
import type { StoredAddress } from "../../schema/address.ts";
import type { Metadata, RecurringInterval } from "../../schema/primitives.ts";

type Json<T> = ColumnType<T, string | undefined, string>;

export type CheckoutStatus = "open" | "expired" | "confirmed" | "succeeded" | "failed";

export interface CheckoutsTable {
  id: Generated<string>;
  created_at: Generated<Date>;
  modified_at: Date | null;
  organization_id: string;
  status: Generated<CheckoutStatus>;
  client_secret: string;
  expires_at: Date;
  /** The buyer's first view (hosted page or public client read); null until then. */
  opened_at: Date | null;
  success_url: string | null;
  return_url: string | null;
  embed_origin: string | null;
  currency: string;
  amount: Generated<number>;
  discount_amount: Generated<number>;
  net_amount: Generated<number>;
  tax_amount: number | null;
  tax_behavior: "inclusive" | "exclusive" | null;
  /** The rate the tax engine applied (0 when reverse-charged); null when no tax is collected from the buyer. */
  tax_rate_basis_points: number | null;
  tax_reverse_charge: Generated<boolean>;
  seats: number | null;
  min_seats: number | null;
  max_seats: number | null;
  allow_trial: boolean | null;
  trial_interval: RecurringInterval | null;
  trial_interval_count: number | null;
  trial_end: Date | null;
  product_id: string | null;
  product_price_id: string | null;
  discount_id: string | null;
  allow_discount_codes: Generated<boolean>;
  require_billing_address: Generated<boolean>;
  customer_id: string | null;
  external_customer_id: string | null;
  is_business_customer: Generated<boolean>;
  customer_name: string | null;
  customer_email: string | null;
  customer_ip_address: string | null;
  customer_billing_name: string | null;
  customer_billing_address: ColumnType<StoredAddress | null, string | null | undefined, string | null>;
  customer_tax_id: string | null;
  locale: string | null;
  payment_method_type: string | null;
  payment_processor_metadata: Json<Record<string, string>>;
  custom_field_data: Json<Record<string, string | number | boolean | null>>;
  metadata: Json<Metadata>;
  customer_metadata: Json<Record<string, string | number | boolean>>;
  subscription_id: string | null;
}
export type CheckoutRow = Selectable<CheckoutsTable>;

export interface CheckoutProductsTable {
  organization_id: string;
  checkout_id: string;
  product_id: string;
  position: number;
}
