import { toIso, toIsoOrNull } from "../../schema/primitives.ts";
import type { Refund } from "./refunds.schemas.ts";
import type { RefundRow } from "./refunds.table.ts";

export const toRefund = (row: RefundRow): Refund => ({
  created_at: toIso(row.created_at),
  modified_at: toIsoOrNull(row.modified_at),
  id: row.id,
  metadata: row.metadata,
  status: row.status,
  reason: row.reason,
  amount: row.amount,
  tax_amount: row.tax_amount,
  currency: row.currency,
  organization_id: row.organization_id,
  order_id: row.order_id,
  subscription_id: row.subscription_id,
  customer_id: row.customer_id,
  revoke_benefits: row.revoke_benefits,
  // A refund prevents no dispute here: this service never refunds a dispute on its own (docs/decisions.md, "Disputes").
  dispute: null,
});
