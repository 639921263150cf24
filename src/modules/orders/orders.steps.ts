import type { Executor } from "../../db/database.ts";
import { recordWebhookEvents, type WebhookEvent } from "../../jobs/webhook-outbox.ts";
import { allocateInvoiceNumber, allocateReceiptNumber, type NumberingOrganization } from "./order-numbers.ts";
import { writeAndReadOrder, writeOrder, type NewOrder } from "./order-creation.ts";
import { dueAmount } from "./order-amounts.ts";
import { DOCUMENT_LINK_TTL_MS, signDocumentLink, type LinkedDocument } from "./order-document-links.ts";
import { findOrder, findOrderForUpdate, findOrderOfCheckout, updateOrder, type OrderVisibility } from "./orders.repository.ts";
import { publishOrderUpdated, readOrder, updateAndReadOrder } from "./orders.service.ts";
import type { Order } from "./orders.schemas.ts";
import type { CreditNoteRow, OrderRow } from "./orders.table.ts";

// The order operations other modules and flows run inside their own transaction.

export {
  dueAmount,
  findOrder,
  findOrderForUpdate,
  findOrderOfCheckout,
  publishOrderUpdated,
  readOrder,
  updateOrder,
  writeAndReadOrder,
  writeOrder,
  type NewOrder,
  type OrderVisibility,
};

/** The events of an order written paid, `order.created` then `order.paid`, for the caller to record with its others. */
export async function paidOrderEvents(db: Executor, row: OrderRow, now: Date): Promise<WebhookEvent[]> {
  const order = await readOrder(db, row);
  return [
    { organizationId: row.organization_id, type: "order.created", data: order, now },
    { organizationId: row.organization_id, type: "order.paid", data: order, now },
  ];
}

/**
 * A pending order paid later (a renewal's charge, a finalized draft): its receipt number when
 * money moved (`reference`), the processor's reference, no further attempt, then `order.updated`
 * and `order.paid`. On the locked order; returns its row and the order as the events carry it.
 */
export async function markOrderPaid(
  db: Executor,
  order: OrderRow,
  payment: { customer: { id: string; short_id: number }; reference: string | null },
  now: Date,
): Promise<{ row: OrderRow; published: Order }> {
  // The update answers the order as the events carry it: no read after the write.
  const { row, order: published } = await updateAndReadOrder(db, order.id, {
    status: "paid",
    payment_reference: payment.reference,
    receipt_number: payment.reference === null ? null : await allocateReceiptNumber(db, order.organization_id, payment.customer),
    next_payment_attempt_at: null,
    modified_at: now,
  });
  // `order.updated` then `order.paid`, in one statement (a renewal's charge among them).
  await recordWebhookEvents(
    db,
    (["order.updated", "order.paid"] as const).map((type) => ({ organizationId: order.organization_id, type, data: published, now })),
  );
  return { row, published };
}
/** A finalized draft's invoice number, assigned only now (drafts have none). On the locked order. */
export async function assignInvoiceNumber(
  db: Executor,
  order: OrderRow,
  organization: NumberingOrganization,
  customer: { id: string; short_id: number },
): Promise<OrderRow> {
  return updateOrder(db, order.id, { invoice_number: await allocateInvoiceNumber(db, organization, customer) });
}

type LinkSigner = { secret: string; config: { publicBaseUrl: string } };

/** An emailed link to the document, working for a year from `now`. */
const emailedLink = (deps: LinkSigner, id: string, document: LinkedDocument, now: Date) =>
  signDocumentLink(
    { secret: deps.secret, publicBaseUrl: deps.config.publicBaseUrl },
    { id, document, expiresAt: new Date(now.getTime() + DOCUMENT_LINK_TTL_MS) },
  );

/** The links an email carries to the order's receipt and invoice, for the flows that write them. */
export function orderDocumentLinks(
  deps: LinkSigner,
  order: Pick<OrderRow, "id" | "receipt_number" | "billing_name" | "billing_address">,
  now: Date,
): { receiptUrl: string | null; invoiceUrl: string | null } {
  const link = (document: LinkedDocument) => emailedLink(deps, order.id, document, now);
  return {
    receiptUrl: order.receipt_number === null ? null : link("receipt"),
    // An invoice needs a billing name and address (as `POST /v1/orders/{id}/invoice` refuses without them).
    invoiceUrl: order.billing_name === null || order.billing_address === null ? null : link("invoice"),
  };
}

/** The link a refund's email carries to the credit note it issued (its PDF, once rendered). */
export const creditNoteLink = (deps: LinkSigner, creditNote: Pick<CreditNoteRow, "id">, now: Date): string =>
  emailedLink(deps, creditNote.id, "credit_note", now);

export { type DocumentLink, type ListedCreditNote, type OrderDocumentService } from "./order-documents.service.ts";
export { itemsByOrder, type OrderPresenter, type OrderService } from "./orders.service.ts";

// What the test clock reads of an organization's orders.
export { nextPaymentRetryAt } from "./order-retries.repository.ts";

// What the payments list and the benefit grants read of their orders (handed to them by services.ts).
export { checkoutIdOfOrder, orderFromCheckoutIn, productIdOfOrder } from "./orders.repository.ts";

// What the renewals read of a subscription's orders.
export {
  claimDueRetry,
  hasOtherDunningOrder,
  ordersAwaitingRetry,
  paymentRetryDueExists,
  pendingOrdersOf,
} from "./order-retries.repository.ts";
export { renewedBefore, subscriptionIdOfOrder } from "./orders.repository.ts";

// What seats read of a product's orders.
export { orderIdsOfProduct } from "./orders.repository.ts";
