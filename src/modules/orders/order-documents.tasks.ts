import { createHash } from "node:crypto";
import type { Task, TaskList } from "graphile-worker";
import type { Deps } from "../../context.ts";
import type { Executor } from "../../db/database.ts";
import { TaskName } from "../../jobs/task-names.ts";
import type { BlobStore, StoredObject } from "../../adapters/blob-stores/blob-store.ts";
import { invoiceFilename, invoiceStorageKey, isDocumentJobPayload, receiptFilename, receiptStorageKey } from "./order-documents.service.ts";
import { renderBillingPdf } from "../../documents/pdf.ts";
import { findCreditNote, findCreditNoteForUpdate, updateCreditNote } from "./credit-notes.repository.ts";
import { creditNoteFilename, creditNoteStorageKey, isCreditNoteJobPayload } from "./credit-notes.service.ts";
import { creditNoteBillingDocument, renderOrderDocument } from "./order-documents.render.ts";
import { findOrderEmbedded, findOrderForUpdate, updateOrder } from "./orders.repository.ts";
import { publishOrderUpdated } from "./orders.service.ts";
import type { OrderRow } from "./orders.table.ts";

const EVERYWHERE = { allowed: null };

interface DocumentKind {
  kind: "invoice" | "receipt";
  storedPath(row: OrderRow): string | null;
  key(row: OrderRow): string;
  meta(row: OrderRow): StoredObject;
  /** Records the stored document on the locked row, in the job's transaction. */
  record(trx: Executor, row: OrderRow, key: string, checksum: string, now: Date): Promise<void>;
}

const invoice: DocumentKind = {
  kind: "invoice",
  storedPath: (row) => row.invoice_path,
  key: invoiceStorageKey,
  meta: (row) => ({ contentType: "application/pdf", filename: invoiceFilename(row.invoice_number) }),
  async record(trx, row, key, checksum, now) {
    const updated = await updateOrder(trx, row.id, { invoice_path: key, invoice_checksum: checksum, modified_at: now });
    await publishOrderUpdated(trx, updated, now);
  },
};

const receipt: DocumentKind = {
  kind: "receipt",
  storedPath: (row) => row.receipt_path,
  key: receiptStorageKey,
  // One render per order and refunded total, which never changes: caches may keep it for good.
  meta: (row) => ({
    contentType: "application/pdf",
    filename: receiptFilename(row.receipt_number),
    cacheControl: "private, max-age=31536000, immutable",
  }),
  // The hosted service sends no order.updated for a receipt render; the receipt is not part of the Order.
  async record(trx, row, key) {
    await updateOrder(trx, row.id, { receipt_path: key });
  },
};

/** Stores a rendered PDF and answers its SHA-256. */
async function storeRendered(store: BlobStore, key: string, pdf: Buffer, meta: StoredObject): Promise<string> {
  await store.put(key, pdf, meta);
  return createHash("sha256").update(pdf).digest("hex");
}

/**
 * Renders and stores the document outside any transaction (a slow PDF or upload holds no lock),
 * then records it under the row lock only if no earlier run did. The render is deterministic, so
 * a duplicate run that overwrites the object writes the same bytes the checksum describes:
 * at-least-once execution yields one stored document and one record.
 */
function documentTask(deps: Deps, store: BlobStore, kind: DocumentKind): Task {
  return async (payload) => {
    if (!isDocumentJobPayload(payload)) return;
    const row = await findOrderEmbedded(deps.db, payload.orderId, EVERYWHERE);
    if (!row || kind.storedPath(row) !== null) return;
    const key = kind.key(row);
    const checksum = await storeRendered(store, key, await renderOrderDocument(deps.db, row, kind.kind), kind.meta(row));
    await deps.db.transaction().execute(async (trx) => {
      const locked = await findOrderForUpdate(trx, row.id, EVERYWHERE);
      // A refund between the render and here makes this render stale: the refund's own job renders it.
      if (!locked || kind.storedPath(locked) !== null || kind.key(locked) !== key) return;
      await kind.record(trx, locked, key, checksum, deps.now());
    });
  };
}

/**
 * A credit note, as an invoice: rendered and stored outside any transaction, recorded under the
 * note's row lock only if no earlier run did. Nothing it prints changes after it is issued (the
 * order's billing details are frozen by the invoice, the amounts are the note's), so every run
 * writes the same bytes to the same key.
 */
function creditNoteTask(deps: Deps, store: BlobStore): Task {
  return async (payload) => {
    if (!isCreditNoteJobPayload(payload)) return;
    const note = await findCreditNote(deps.db, payload.creditNoteId);
    if (!note || note.path !== null) return;
    const order = await findOrderEmbedded(deps.db, note.order_id, EVERYWHERE);
    if (!order) return;
    const key = creditNoteStorageKey(note);
    const pdf = await renderBillingPdf(await creditNoteBillingDocument(deps.db, order, note));
    // Like a receipt, a credit note never changes once stored.
    const checksum = await storeRendered(store, key, pdf, {
      contentType: "application/pdf",
      filename: creditNoteFilename(note.number),
      cacheControl: "private, max-age=31536000, immutable",
    });
    await deps.db.transaction().execute(async (trx) => {
      const locked = await findCreditNoteForUpdate(trx, note.id);
      if (locked?.path === null) await updateCreditNote(trx, note.id, { path: key, checksum });
    });
  };
}

export function orderDocumentTasks(deps: Deps, store: BlobStore): TaskList {
  return {
    [TaskName.orderInvoice]: documentTask(deps, store, invoice),
    [TaskName.orderReceipt]: documentTask(deps, store, receipt),
    [TaskName.creditNote]: creditNoteTask(deps, store),
  };
}
