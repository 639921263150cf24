import type { Executor } from "../../db/database.ts";
import type { OrganizationScope } from "../../http/auth.ts";
import { recordWebhookEvent } from "../../jobs/webhook-outbox.ts";
import { issueCreditNote, type CreditedRefund } from "./credit-notes.service.ts";
import { rerenderReceipt } from "./order-documents.service.ts";
import { refundableAmount } from "./order-amounts.ts";
import { findOrderForUpdate, updateOrder } from "./orders.repository.ts";
import { publishOrderUpdated } from "./orders.service.ts";
import type { CreditNoteRow, OrderRow } from "./orders.table.ts";

// What the refund flow does to an order, inside the refund's transaction.

export { refundableTaxAmount, refundBase, refundableAmount, type RefundTotals } from "./order-amounts.ts";

/** The order a refund is for, locked for the refund, with what of it is left to refund; undefined when the caller may not see it. */
export async function lockOrderForRefund(
  db: Executor,
  orderId: string,
  allowed: OrganizationScope,
): Promise<{ order: OrderRow; refundable: number } | undefined> {
  const order = await findOrderForUpdate(db, orderId, { allowed });
  return order && { order, refundable: refundableAmount(order) };
}

type RefundedTotals = Pick<OrderRow, "refunded_amount" | "refunded_tax_amount" | "status">;

/** The order's refunded totals and status after a refund, `order.updated` and `order.refunded`; returns the updated order. */
export async function recordOrderRefund(db: Executor, order: OrderRow, totals: RefundedTotals, now: Date): Promise<OrderRow> {
  const updated = await updateOrder(db, order.id, { ...totals, modified_at: now });
  const published = await publishOrderUpdated(db, updated, now);
  await recordWebhookEvent(db, { organizationId: order.organization_id, type: "order.refunded", data: published, now });
  return updated;
}

/** The order's totals once a succeeded refund failed after all: `order.updated` only, as nothing more was refunded. */
export async function recordOrderRefundReverted(db: Executor, order: OrderRow, totals: RefundedTotals, now: Date): Promise<void> {
  await publishOrderUpdated(db, await updateOrder(db, order.id, { ...totals, modified_at: now }), now);
}

/** A refunded order's documents: the receipt rendered again, and a credit note where the order was invoiced (returned, else null). */
export async function reissueRefundedOrderDocuments(
  db: Executor,
  order: OrderRow,
  refund: CreditedRefund,
  now: Date,
): Promise<CreditNoteRow | null> {
  await rerenderReceipt(db, order, now);
  return issueCreditNote(db, order, refund, now);
}
