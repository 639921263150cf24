import { sql } from "kysely";
import type { Executor } from "../../db/database.ts";
import type { BillingCountersTable } from "./orders.table.ts";

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

/**
 * The next value of a counter. The upsert takes the counter's row lock until the transaction ends,
 * so concurrent orders of one subject are serialized and a rollback frees the number: gap-free.
 */
async function nextValue(db: Executor, organizationId: string, subjectId: string, kind: BillingCountersTable["kind"]): Promise<number> {
  const row = await db
    .insertInto("billing_counters")
    .values({ organization_id: organizationId, subject_id: subjectId, kind, value: 1 })
    .onConflict((oc) => oc.columns(["subject_id", "kind"]).doUpdateSet({ value: sql`billing_counters.value + 1` }))
    .returning("value")
    .executeTakeFirstOrThrow();
  return row.value;
}

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
    return `${prefix}-${sequenceNumber(await nextValue(db, organization.id, organization.id, "invoice"))}`;
  }
  return `${prefix}-${shortIdCode(customer.short_id)}-${sequenceNumber(await nextValue(db, organization.id, customer.id, "invoice"))}`;
}

/** `RCPT-{SHORTID}-{NNNN}` from the customer's receipt counter. */
export async function allocateReceiptNumber(
  db: Executor,
  organizationId: string,
  customer: { id: string; short_id: number },
): Promise<string> {
  return `RCPT-${shortIdCode(customer.short_id)}-${sequenceNumber(await nextValue(db, organizationId, customer.id, "receipt"))}`;
}

/**
 * `{PREFIX}-CN-{NNNN}`: one sequence per organization whatever its invoice numbering, so the
 * seller's credit notes read as one gap-free series beside its invoices.
 */
export async function allocateCreditNoteNumber(
  db: Executor,
  organization: Pick<NumberingOrganization, "id" | "slug" | "invoice_prefix">,
): Promise<string> {
  return `${invoicePrefix(organization)}-CN-${sequenceNumber(await nextValue(db, organization.id, organization.id, "credit_note"))}`;
}
