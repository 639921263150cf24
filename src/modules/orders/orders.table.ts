import type { ColumnType, Generated, Selectable } from "kysely";
import type { StoredAddress } from "../../schema/address.ts";
import type { Metadata } from "../../schema/primitives.ts";

type Json<T> = ColumnType<T, string | undefined, string>;

export type OrderStatus = "draft" | "pending" | "paid" | "refunded" | "partially_refunded" | "void";
export type OrderBillingReason =
  "purchase" | "subscription_create" | "subscription_cycle" | "subscription_update" | "subscription_meter_cycle";

export interface OrdersTable {
  id: Generated<string>;
  created_at: Generated<Date>;
  modified_at: Date | null;
  organization_id: string;
  customer_id: string;
  product_id: string | null;
  discount_id: string | null;
  subscription_id: string | null;
  checkout_id: string | null;
  status: OrderStatus;
  billing_reason: OrderBillingReason;
  subtotal_amount: number;
  discount_amount: Generated<number>;
  net_amount: number;
  tax_amount: Generated<number>;
  /** The rate the tax engine applied (0 when reverse-charged); null when no tax was collected. */
  tax_rate_basis_points: number | null;
  tax_reverse_charge: Generated<boolean>;
  total_amount: number;
  applied_balance_amount: Generated<number>;
  refunded_amount: Generated<number>;
  refunded_tax_amount: Generated<number>;
  platform_fee_amount: Generated<number>;
  platform_fee_currency: string | null;
  currency: string;
  billing_name: string | null;
  billing_address: ColumnType<StoredAddress | null, string | null | undefined, string | null>;
  /** `[normalized number, format]`, copied from the buyer at creation. */
  tax_id: ColumnType<[string, string] | null, string | null | undefined, string | null>;
  /** Null only while a draft; assigned at creation otherwise. */
  invoice_number: string | null;
  invoice_path: string | null;
  invoice_checksum: string | null;
  receipt_number: string | null;
  receipt_path: string | null;
  invoice_requested_at: Date | null;
  receipt_requested_at: Date | null;
  description: string;
  seats: number | null;
  next_payment_attempt_at: Date | null;
  /** The payment processor's charge id; set when money actually moved. */
  payment_reference: string | null;
  metadata: Json<Metadata>;
  custom_field_data: Json<Record<string, string | number | boolean | null>>;
}
export type OrderRow = Selectable<OrdersTable>;

export interface OrderItemsTable {
  id: Generated<string>;
  created_at: Generated<Date>;
  modified_at: Date | null;
  organization_id: string;
  order_id: string;
  label: string;
  amount: number;
  tax_amount: Generated<number>;
  proration: Generated<boolean>;
  product_price_id: string | null;
  position: Generated<number>;
}
export type OrderItemRow = Selectable<OrderItemsTable>;

export interface BillingCountersTable {
  organization_id: string;
  /** The customer (per-customer numbering, receipts) or the organization (per-organization invoices). */
  subject_id: string;
  kind: "invoice" | "receipt" | "credit_note";
  value: number;
}

/** A credit note: one per succeeded refund of an order whose invoice exists (docs/decisions.md, "Credit notes"). */
export interface CreditNotesTable {
  id: Generated<string>;
  /** When the note was issued: with its refund, or with the invoice when the refund came first. */
  created_at: Date;
  organization_id: string;
  order_id: string;
  refund_id: string;
  number: string;
  /** What the refund recorded: its date, its pre-tax amount and its tax share, in minor units. */
  refunded_at: Date;
  amount: number;
  tax_amount: number;
  currency: string;
  /** The stored PDF and its SHA-256, once rendered. */
  path: string | null;
  checksum: string | null;
}
export type CreditNoteRow = Selectable<CreditNotesTable>;
