import type { ColumnType, Generated, Selectable } from "kysely";
import type { Metadata } from "../../schema/primitives.ts";
import type { RefundReasonValues, RefundStatusValues } from "./refunds.schemas.ts";

export type RefundStatus = (typeof RefundStatusValues)[number];
export type RefundReason = (typeof RefundReasonValues)[number];

export interface RefundsTable {
  id: Generated<string>;
  created_at: Date;
  modified_at: Date | null;
  organization_id: string;
  order_id: string;
  subscription_id: string | null;
  customer_id: string;
  payment_id: string;
  status: RefundStatus;
  reason: RefundReason;
  /** The refunded part of the order's net amount (before tax), in minor units. */
  amount: number;
  /** The tax share refunded with it (docs/decisions.md, "Refunds: the tax share"). */
  tax_amount: number;
  currency: string;
  /** An internal note; never on the wire. */
  comment: string | null;
  revoke_benefits: boolean;
  metadata: ColumnType<Metadata, string, string>;
  /** The processor's refund id, once it answered. */
  processor_reference: string | null;
  failure_message: string | null;
}
export type RefundRow = Selectable<RefundsTable>;
