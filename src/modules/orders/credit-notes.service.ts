import type { Executor } from "../../db/database.ts";
import { enqueueJob } from "../../jobs/queue.ts";
import { TaskName } from "../../jobs/task-names.ts";
import { numberingOrganization } from "../organizations/organizations.steps.ts";
import { insertCreditNote, succeededRefundsOfOrder } from "./credit-notes.repository.ts";
import { allocateCreditNoteNumber } from "./order-numbers.ts";
import type { CreditNoteRow, OrderRow } from "./orders.table.ts";

/** What a credit note job carries: the note, nothing else (everything else is read fresh). */
export interface CreditNoteJobPayload {
  creditNoteId: string;
}

export const isCreditNoteJobPayload = (value: unknown): value is CreditNoteJobPayload =>
  typeof value === "object" && value !== null && typeof (value as { creditNoteId?: unknown }).creditNoteId === "string";

/** One stored object per note, named by ids only: a re-run of the job overwrites the same key. */
export const creditNoteStorageKey = (note: Pick<CreditNoteRow, "organization_id" | "id">) =>
  `credit-notes/${note.organization_id}/${note.id}.pdf`;
export const creditNoteFilename = (number: string) => `Credit-note-${number}.pdf`;

/** What a credit note copies from its refund. */
export interface CreditedRefund {
  id: string;
  created_at: Date;
  amount: number;
  tax_amount: number;
  currency: string;
}

/** An order's invoice exists once requested: from then on its number is the customer's, and refunds correct it. */
const hasInvoice = (order: Pick<OrderRow, "invoice_requested_at" | "invoice_path">): boolean =>
  order.invoice_requested_at !== null || order.invoice_path !== null;

/**
 * Numbers the note (the counter's row stays locked until the caller commits: a rollback gives the
 * number back), writes it and enqueues its render, all in the caller's transaction, so a crash
 * after the commit still renders it.
 */
async function issue(trx: Executor, order: OrderRow, refund: CreditedRefund, now: Date): Promise<CreditNoteRow> {
  const number = await allocateCreditNoteNumber(trx, await numberingOrganization(trx, order.organization_id));
  const note = await insertCreditNote(trx, {
    created_at: now,
    organization_id: order.organization_id,
    order_id: order.id,
    refund_id: refund.id,
    number,
    refunded_at: refund.created_at,
    amount: refund.amount,
    tax_amount: refund.tax_amount,
    currency: refund.currency,
  });
  await enqueueJob(trx, TaskName.creditNote, { creditNoteId: note.id } satisfies CreditNoteJobPayload, {
    jobKey: `${TaskName.creditNote}:${note.id}`,
  });
  return note;
}

/** A succeeded refund, in its transaction under the order's lock: a credit note when the order's invoice exists. */
export async function issueCreditNote(trx: Executor, order: OrderRow, refund: CreditedRefund, now: Date): Promise<CreditNoteRow | null> {
  return hasInvoice(order) ? issue(trx, order, refund, now) : null;
}

/**
 * The invoice's first request, in its transaction under the order's lock: the refunds that came
 * before it get their credit notes now, oldest first, so every refund of an invoiced order has one.
 */
export async function issueEarlierCreditNotes(trx: Executor, order: OrderRow, now: Date): Promise<void> {
  for (const refund of await succeededRefundsOfOrder(trx, order.id)) {
    if (refund.credit_note_id === null) await issue(trx, order, refund, now);
  }
}
