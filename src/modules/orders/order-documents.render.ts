import type { Executor } from "../../db/database.ts";
import { renderBillingPdf, type BillingDocument } from "../../documents/pdf.ts";
import { logoImage } from "../../documents/logo.ts";
import { isEuMember } from "../../adapters/tax-engine/tax.rates.ts";
import { succeededRefundsOfOrder } from "./credit-notes.repository.ts";
import { organizationForDocument } from "../organizations/organizations.steps.ts";
import { orderDocumentContext } from "./order-documents.repository.ts";
import type { OrderEmbeddedRow } from "./orders.repository.ts";
import type { CreditNoteRow } from "./orders.table.ts";

/** The documents of an order itself; a credit note is a refund's. */
export type OrderDocumentKind = "invoice" | "receipt";

const PAID: readonly OrderEmbeddedRow["status"][] = ["paid", "refunded", "partially_refunded"];

/** Everything printed on the order's invoice or receipt: the order with its relations, the seller, the checkout's locale. */
export async function orderBillingDocument(db: Executor, row: OrderEmbeddedRow, kind: OrderDocumentKind): Promise<BillingDocument> {
  const { items, customer } = row;
  const organization = await organizationForDocument(db, row.organization_id);
  const context = await orderDocumentContext(db, row.id);
  const number = kind === "invoice" ? row.invoice_number : row.receipt_number;
  if (number === null) throw new Error(`order ${row.id} has no ${kind} number`);
  const buyerTaxId = row.tax_id?.[0] ?? null;
  const isBusiness = context.is_business_customer === true || buyerTaxId !== null;
  // The order keeps the rate and reverse charge the tax engine applied when it was written.
  const tax = { rate: row.tax_rate_basis_points, reverseCharge: row.tax_reverse_charge };
  const sellerVatNumber =
    organization.tax_registrations.find((registration) => isEuMember(registration.country) && registration.number !== null)?.number ?? null;
  // A receipt exists only once paid; an order written paid without a payment (nothing to charge) was paid when created.
  const paidAt = kind === "receipt" || PAID.includes(row.status) ? (context.paid_at ?? row.created_at) : null;
  return {
    kind,
    number,
    issuedAt: row.created_at,
    suppliedAt: row.created_at,
    paidAt,
    currency: row.currency,
    locale: context.checkout_locale ?? context.customer_locale,
    seller: {
      name: organization.legal_name ?? organization.name,
      address: organization.legal_address,
      taxIds: organization.tax_registrations.flatMap((registration) => (registration.number === null ? [] : [registration.number])),
      contact: [organization.email, organization.website].filter((line): line is string => line !== null),
      logo: logoImage(organization.avatar_url) ?? organization.fetched_logo,
    },
    buyer: {
      // Receipts need no billing details; they fall back to the customer.
      name: row.billing_name ?? customer?.name ?? customer?.email ?? "",
      address: row.billing_address,
      taxIds: buyerTaxId ? [buyerTaxId] : [],
      contact: [],
      isBusiness,
    },
    lines: items.map((item) => ({
      description: item.label,
      quantity: 1,
      unitAmount: item.amount,
      amount: item.amount,
      taxRateBasisPoints: tax.rate,
      taxAmount: item.tax_amount,
    })),
    subtotal: row.subtotal_amount,
    discount: row.discount_amount,
    taxes: tax.rate === null ? [] : [{ rateBasisPoints: tax.rate, base: row.net_amount, amount: row.tax_amount }],
    total: row.total_amount,
    reverseCharge: tax.reverseCharge && buyerTaxId ? { sellerVatNumber, buyerVatNumber: buyerTaxId } : null,
    // A receipt is rendered again after each refund (refunds.service.ts) and says what went back, refund by refund.
    refunds:
      kind === "receipt"
        ? (await succeededRefundsOfOrder(db, row.id)).map((refund) => ({
            at: refund.created_at,
            amount: refund.amount + refund.tax_amount,
          }))
        : [],
  };
}

/**
 * A credit note: the invoice's parties and rate, and one negative line for what the refund
 * recorded (its pre-tax amount and its tax share), referring to the invoice it corrects.
 */
export async function creditNoteBillingDocument(db: Executor, row: OrderEmbeddedRow, note: CreditNoteRow): Promise<BillingDocument> {
  const invoice = await orderBillingDocument(db, row, "invoice");
  const rate = row.tax_rate_basis_points;
  return {
    ...invoice,
    kind: "credit_note",
    number: note.number,
    issuedAt: note.created_at,
    paidAt: null,
    lines: [
      {
        description: row.items.map((item) => item.label).join(", "),
        quantity: 1,
        unitAmount: -note.amount,
        amount: -note.amount,
        taxRateBasisPoints: rate,
        taxAmount: -note.tax_amount,
      },
    ],
    subtotal: -note.amount,
    discount: 0,
    taxes: rate === null ? [] : [{ rateBasisPoints: rate, base: -note.amount, amount: -note.tax_amount }],
    total: -(note.amount + note.tax_amount),
    refunds: [],
    credits: { invoiceNumber: invoice.number, invoiceIssuedAt: invoice.issuedAt, refundedAt: note.refunded_at },
  };
}

export const renderOrderDocument = async (db: Executor, row: OrderEmbeddedRow, kind: OrderDocumentKind): Promise<Buffer> =>
  renderBillingPdf(await orderBillingDocument(db, row, kind));
