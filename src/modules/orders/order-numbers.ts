import type { Executor } from "../../db/database.ts";
import { nextBillingCounterValue } from "./billing-counters.repository.ts";

/** Customer short id as 8 letters: base 26 over A–Z, left-padded with `A`. */
export function shortIdCode(shortId: number): string {
  let out = "";
  let rest = shortId;
  do {
    out = String.fromCharCode(65 + (rest % 26)) + out;
    rest = Math.floor(rest / 26);
  } while (rest > 0);
  return out.padStart(8, "A");
}

const sequenceNumber = (value: number): string => String(value).padStart(4, "0");

export interface NumberingOrganization {
  id: string;
  slug: string;
  invoice_prefix: string | null;
  invoice_numbering: "customer" | "organization";
}

const invoicePrefix = (organization: Pick<NumberingOrganization, "slug" | "invoice_prefix">): string =>
  organization.invoice_prefix ?? organization.slug.toUpperCase();

/** `{PREFIX}-{SHORTID}-{NNNN}` per customer, or `{PREFIX}-{NNNN}` per organization. */
export async function allocateInvoiceNumber(
  db: Executor,
  organization: NumberingOrganization,
  customer: { id: string; short_id: number },
): Promise<string> {
  const prefix = invoicePrefix(organization);
  if (organization.invoice_numbering === "organization") {
    return `${prefix}-${sequenceNumber(await nextBillingCounterValue(db, organization.id, organization.id, "invoice"))}`;
  }
  return `${prefix}-${shortIdCode(customer.short_id)}-${sequenceNumber(await nextBillingCounterValue(db, organization.id, customer.id, "invoice"))}`;
}

/** `RCPT-{SHORTID}-{NNNN}` from the customer's receipt counter. */
export async function allocateReceiptNumber(
  db: Executor,
  organizationId: string,
  customer: { id: string; short_id: number },
): Promise<string> {
  return `RCPT-${shortIdCode(customer.short_id)}-${sequenceNumber(await nextBillingCounterValue(db, organizationId, customer.id, "receipt"))}`;
}

/**
 * `{PREFIX}-CN-{NNNN}`: one sequence per organization whatever its invoice numbering, so the
 * seller's credit notes read as one gap-free series beside its invoices.
 */
export async function allocateCreditNoteNumber(
  db: Executor,
  organization: Pick<NumberingOrganization, "id" | "slug" | "invoice_prefix">,
): Promise<string> {
  return `${invoicePrefix(organization)}-CN-${sequenceNumber(await nextBillingCounterValue(db, organization.id, organization.id, "credit_note"))}`;
}
