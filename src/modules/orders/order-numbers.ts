import type { Executor } from "../../db/database.ts";
import { nextBillingCounterValue, nextBillingCounterValues } from "./billing-counters.repository.ts";

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

const invoiceSubject = (organization: NumberingOrganization, customer: { id: string }): string =>
  organization.invoice_numbering === "organization" ? organization.id : customer.id;

/** `{PREFIX}-{SHORTID}-{NNNN}` per customer, or `{PREFIX}-{NNNN}` per organization. */
const invoiceNumber = (organization: NumberingOrganization, customer: { short_id: number }, value: number): string =>
  organization.invoice_numbering === "organization"
    ? `${invoicePrefix(organization)}-${sequenceNumber(value)}`
    : `${invoicePrefix(organization)}-${shortIdCode(customer.short_id)}-${sequenceNumber(value)}`;

/** `RCPT-{SHORTID}-{NNNN}` from the customer's receipt counter. */
const receiptNumber = (customer: { short_id: number }, value: number): string =>
  `RCPT-${shortIdCode(customer.short_id)}-${sequenceNumber(value)}`;

export async function allocateInvoiceNumber(
  db: Executor,
  organization: NumberingOrganization,
  customer: { id: string; short_id: number },
): Promise<string> {
  return invoiceNumber(
    organization,
    customer,
    await nextBillingCounterValue(db, organization.id, invoiceSubject(organization, customer), "invoice"),
  );
}

export async function allocateReceiptNumber(
  db: Executor,
  organizationId: string,
  customer: { id: string; short_id: number },
): Promise<string> {
  return receiptNumber(customer, await nextBillingCounterValue(db, organizationId, customer.id, "receipt"));
}

/**
 * A new order's invoice and receipt numbers, those `wanted`, in one statement (null: not wanted);
 * the invoice's counter first, as when allocated one by one.
 */
export async function allocateOrderNumbers(
  db: Executor,
  organization: NumberingOrganization,
  customer: { id: string; short_id: number },
  wanted: { invoice: boolean; receipt: boolean },
): Promise<{ invoiceNumber: string | null; receiptNumber: string | null }> {
  const counters = [
    ...(wanted.invoice ? [{ subjectId: invoiceSubject(organization, customer), kind: "invoice" as const }] : []),
    ...(wanted.receipt ? [{ subjectId: customer.id, kind: "receipt" as const }] : []),
  ];
  const values = await nextBillingCounterValues(db, organization.id, counters);
  const valueOf = (kind: "invoice" | "receipt") => values[counters.findIndex((counter) => counter.kind === kind)];
  const invoice = valueOf("invoice");
  const receipt = valueOf("receipt");
  return {
    invoiceNumber: invoice === undefined ? null : invoiceNumber(organization, customer, invoice),
    receiptNumber: receipt === undefined ? null : receiptNumber(customer, receipt),
  };
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
