import type { Generated, Selectable } from "kysely";
import type { DisputeStatusValues } from "./disputes.schemas.ts";

export type DisputeStatus = (typeof DisputeStatusValues)[number];

export interface DisputesTable {
  id: Generated<string>;
  created_at: Date;
  modified_at: Date | null;
  organization_id: string;
  order_id: string;
  payment_id: string;
  customer_id: string;
  status: DisputeStatus;
  /** The disputed part of the order's net amount (before tax), in minor units. */
  amount: number;
  /** The tax share of the disputed total (docs/decisions.md, "Disputes"). */
  tax_amount: number;
  currency: string;
  /** The card network's reason, as the processor reports it. */
  reason: string | null;
  evidence_due_by: Date | null;
  /** The processor's dispute id: the key its events are upserted by. */
  processor_dispute_id: string;
  /** The instant of the processor event whose state the row holds: older events never overwrite it. */
  processor_updated_at: Date;
}
export type DisputeRow = Selectable<DisputesTable>;
