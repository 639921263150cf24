import type { Deps } from "../../context.ts";
import { enqueueJob } from "../../jobs/queue.ts";
import { TaskName } from "../../jobs/task-names.ts";
import { ResourceNotFound } from "../../http/errors.ts";
import type { Executor } from "../../db/database.ts";
import type { BlobStore } from "../../adapters/blob-stores/blob-store.ts";
import { creditNotesOfOrder, findCreditNote, findCreditNoteOfRefund } from "./credit-notes.repository.ts";
import { creditNoteFilename, issueEarlierCreditNotes } from "./credit-notes.service.ts";
import type { LinkedDocument } from "./order-document-links.ts";
import { markReceiptRequested } from "./order-documents.repository.ts";
import {
  CreditNoteDoesNotExist,
  InvoiceDoesNotExist,
  MissingInvoiceBillingDetails,
  OrderNotEligibleForInvoice,
  ReceiptNotAllocated,
} from "./orders.errors.ts";
import * as repo from "./orders.repository.ts";
import type { OrderRow, OrderStatus } from "./orders.table.ts";

/** What the document jobs carry: the order, nothing else (everything else is read fresh). */
export interface DocumentJobPayload {
  orderId: string;
}

export const isDocumentJobPayload = (value: unknown): value is DocumentJobPayload =>
  typeof value === "object" && value !== null && typeof (value as { orderId?: unknown }).orderId === "string";

/**
 * One stored object per order and kind: a re-run of a job overwrites the same key, so storage
 * never holds two versions of one document.
 */
export const invoiceStorageKey = (row: Pick<OrderRow, "organization_id" | "id">) => `invoices/${row.organization_id}/${row.id}.pdf`;
/** A receipt after refunds is another document: its key names what was refunded, so a cached copy never goes stale. */
export const receiptStorageKey = (row: Pick<OrderRow, "organization_id" | "id" | "refunded_amount" | "refunded_tax_amount">) => {
  const refunded = row.refunded_amount + row.refunded_tax_amount;
  return `receipts/${row.organization_id}/${row.id}${refunded > 0 ? `-refunded-${refunded}` : ""}.pdf`;
};
export const invoiceFilename = (invoiceNumber: string | null) => `Invoice-${invoiceNumber ?? "draft"}.pdf`;
export const receiptFilename = (receiptNumber: string | null) => `Receipt-${receiptNumber ?? "pending"}.pdf`;

const enqueueReceipt = (trx: Executor, orderId: string) =>
  enqueueJob(trx, TaskName.orderReceipt, { orderId } satisfies DocumentJobPayload, { jobKey: `${TaskName.orderReceipt}:${orderId}` });

/**
 * After a refund changed the order's amounts, in the refund's transaction: a receipt already
 * stored or asked for is cleared and rendered again; one never asked for is rendered as the order
 * then stands whenever it first is.
 */
export async function rerenderReceipt(trx: Executor, row: OrderRow, now: Date): Promise<void> {
  if (row.receipt_number === null || (row.receipt_path === null && row.receipt_requested_at === null)) return;
  await repo.updateOrder(trx, row.id, { receipt_path: null, receipt_requested_at: now });
  await enqueueReceipt(trx, row.id);
}

const NOT_INVOICEABLE: readonly OrderStatus[] = ["draft", "void"];

export interface DocumentLink {
  url: string;
}

export interface ListedCreditNote {
  number: string;
  created_at: Date;
  refunded_amount: number;
  refunded_tax_amount: number;
  url: string | null;
}

export function createOrderDocumentService(deps: Deps, store: BlobStore) {
  const { db } = deps;
  const link = async (key: string, filename: string): Promise<DocumentLink> => ({
    url: await store.downloadUrl(key, { filename, expiresInSeconds: deps.config.storage.downloadUrlTtlSeconds }),
  });

  const service = {
    /**
     * Schedules the invoice once. The checks run on the locked row, so a concurrent PATCH either
     * lands before (and is printed) or is refused after; a repeated request changes nothing.
     */
    async requestInvoice(id: string, visibility: repo.OrderVisibility): Promise<void> {
      await db.transaction().execute(async (trx) => {
        const row = await repo.findOrderForUpdate(trx, id, visibility);
        if (!row) throw new ResourceNotFound();
        if (NOT_INVOICEABLE.includes(row.status)) throw new OrderNotEligibleForInvoice(row.id, row.status);
        // An empty name is a name: only a missing one refuses, as the hosted service does.
        if (row.billing_name === null || row.billing_address === null) throw new MissingInvoiceBillingDetails();
        if (row.invoice_requested_at !== null || row.invoice_path !== null) return;
        const now = deps.now();
        await repo.updateOrder(trx, row.id, { invoice_requested_at: now });
        await issueEarlierCreditNotes(trx, row, now);
        await enqueueJob(trx, TaskName.orderInvoice, { orderId: row.id } satisfies DocumentJobPayload, {
          jobKey: `${TaskName.orderInvoice}:${row.id}`,
        });
      });
    },

    async invoice(id: string, visibility: repo.OrderVisibility): Promise<DocumentLink> {
      const row = await repo.findOrder(db, id, visibility);
      if (!row) throw new ResourceNotFound();
      if (row.invoice_path === null) throw new InvoiceDoesNotExist(row.id);
      return link(row.invoice_path, invoiceFilename(row.invoice_number));
    },

    /** The receipt's link, or null while it is being rendered (the first such call schedules it). */
    async receipt(id: string, visibility: repo.OrderVisibility): Promise<DocumentLink | null> {
      const row = await repo.findOrder(db, id, visibility);
      if (!row) throw new ResourceNotFound();
      if (row.receipt_number === null) throw new ReceiptNotAllocated(row.id);
      if (row.receipt_path !== null) return link(row.receipt_path, receiptFilename(row.receipt_number));
      await db.transaction().execute(async (trx) => {
        if (await markReceiptRequested(trx, row.id, deps.now())) await enqueueReceipt(trx, row.id);
      });
      return null;
    },

    /**
     * The document an emailed link names (its signature checked by the route): its link once
     * rendered, `preparing` while it is (following the link asks for it, as the API would), or null
     * when there is none to give (no receipt number; no billing details for an invoice; no such
     * credit note).
     */
    async linkedDocument(id: string, document: LinkedDocument): Promise<DocumentLink | "preparing" | null> {
      if (document === "credit_note") {
        // Issued with its refund, its render already enqueued: nothing to ask for.
        const note = await findCreditNote(db, id);
        if (!note) return null;
        return note.path === null ? "preparing" : link(note.path, creditNoteFilename(note.number));
      }
      const anyOrganization = { allowed: null };
      try {
        if (document === "receipt") return (await service.receipt(id, anyOrganization)) ?? "preparing";
        await service.requestInvoice(id, anyOrganization);
        return (await repo.findOrder(db, id, anyOrganization))?.invoice_path ? await service.invoice(id, anyOrganization) : "preparing";
      } catch (error) {
        const unavailable = [ResourceNotFound, ReceiptNotAllocated, MissingInvoiceBillingDetails, OrderNotEligibleForInvoice];
        if (unavailable.some((kind) => error instanceof kind)) return null;
        throw error;
      }
    },

    /**
     * The credit note of a refund the caller may see: its link, or null while it is being
     * rendered. A refund without one (its order has no invoice, or it did not succeed) is 404.
     */
    async creditNote(refundId: string): Promise<DocumentLink | null> {
      const note = await findCreditNoteOfRefund(db, refundId);
      if (!note) throw new CreditNoteDoesNotExist(refundId);
      return note.path === null ? null : link(note.path, creditNoteFilename(note.number));
    },

    /** An order's credit notes, oldest first, each with its link once rendered (null before). */
    async creditNotes(orderId: string, visibility: repo.OrderVisibility): Promise<ListedCreditNote[]> {
      const row = await repo.findOrder(db, orderId, visibility);
      if (!row) throw new ResourceNotFound();
      return Promise.all(
        (await creditNotesOfOrder(db, row.id)).map(async (note) => ({
          number: note.number,
          created_at: note.created_at,
          refunded_amount: note.amount,
          refunded_tax_amount: note.tax_amount,
          url: note.path === null ? null : (await link(note.path, creditNoteFilename(note.number))).url,
        })),
      );
    },
  };
  return service;
}
export type OrderDocumentService = ReturnType<typeof createOrderDocumentService>;
