import type { Executor } from "../../db/database.ts";
import { renderBillingPdf, type BillingDocument } from "../../documents/pdf.ts";
import { isEuMember } from "../tax/tax.rates.ts";
import { rateOfTax, reverseChargeApplies } from "../tax/tax.engine.ts";
import { orderDocumentContext, organizationForDocument } from "./order-documents.repository.ts";
import type { OrderEmbeddedRow } from "./orders.repository.ts";

const PAID: readonly OrderEmbeddedRow["status"][] = ["paid", "refunded", "partially_refunded"];

/**
 * The order's tax as the documents state it. Orders keep the tax amount, not how it came about:
 * reverse charge is read back from the rule the tax engine applies (a business buyer with a valid
 * EU VAT number, charged no tax), the rate from the amounts (`rateOfTax`).
 */
function orderTax(row: OrderEmbeddedRow, isBusiness: boolean): { rate: number | null; reverseCharge: boolean } {
  const country = row.billing_address?.country ?? null;
  if (row.tax_amount > 0) return { rate: rateOfTax(country, row.net_amount, row.tax_amount), reverseCharge: false };
  if (country === null || row.net_amount <= 0) return { rate: null, reverseCharge: false };
  const reverseCharge = reverseChargeApplies({ country, isBusiness, taxId: row.tax_id?.[0] ?? null });
  return { rate: reverseCharge ? 0 : null, reverseCharge };
}

/** Everything printed on the order's invoice or receipt: the order with its relations, the seller, the checkout's locale. */
export async function orderBillingDocument(db: Executor, row: OrderEmbeddedRow, kind: BillingDocument["kind"]): Promise<BillingDocument> {
  const { items, customer } = row;
  const organization = await organizationForDocument(db, row.organization_id);
  const context = await orderDocumentContext(db, row.id);
  const number = kind === "invoice" ? row.invoice_number : row.receipt_number;
  if (number === null) throw new Error(`order ${row.id} has no ${kind} number`);
  const buyerTaxId = row.tax_id?.[0] ?? null;
  const isBusiness = context.is_business_customer === true || buyerTaxId !== null;
  const tax = orderTax(row, isBusiness);
  const sellerVatNumber = organization.tax_registrations.find((registration) => isEuMember(registration.country))?.number ?? null;
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
      taxIds: organization.tax_registrations.map((registration) => registration.number),
      contact: [organization.email, organization.website].filter((line): line is string => line !== null),
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
    // A receipt is rendered again after each refund (refunds.service.ts) and says what went back.
    refunded: kind === "receipt" ? row.refunded_amount + row.refunded_tax_amount : 0,
  };
}

export const renderOrderDocument = async (db: Executor, row: OrderEmbeddedRow, kind: BillingDocument["kind"]): Promise<Buffer> =>
  renderBillingPdf(await orderBillingDocument(db, row, kind));
