import type { Executor } from "../../db/database.ts";
import type { StoredAddress } from "../../kit/address.ts";
import { renderBillingPdf, type BillingDocument } from "../../documents/pdf.ts";
import { organizationForDocument } from "./order-documents.repository.ts";
import type { OrderEmbeddedRow } from "./orders.repository.ts";

const addressLines = (address: StoredAddress | null): string[] => {
  if (!address) return [];
  const cityLine = [address.postal_code, address.city].filter(Boolean).join(" ");
  return [address.line1, address.line2, cityLine, address.state, address.country].filter((line): line is string => Boolean(line));
};

/**
 * Orders keep the tax amount, not the rate it came from: the rate printed is the effective one,
 * tax over the taxed amount, in whole basis points (null when nothing was taxable).
 */
export const effectiveRateBasisPoints = (tax: number, taxable: number): number | null =>
  taxable > 0 ? Math.round((tax * 10_000) / taxable) : null;

/** Everything printed on the order's invoice or receipt: the order with its relations, and the seller. */
export async function orderBillingDocument(db: Executor, row: OrderEmbeddedRow, kind: BillingDocument["kind"]): Promise<BillingDocument> {
  const { items, customer, discount } = row;
  const organization = await organizationForDocument(db, row.organization_id);
  const number = kind === "invoice" ? row.invoice_number : row.receipt_number;
  if (number === null) throw new Error(`order ${row.id} has no ${kind} number`);
  return {
    kind,
    number,
    issuedAt: row.created_at,
    // Orders are written paid, at creation; a receipt exists only when a payment was taken.
    paidAt: kind === "receipt" ? row.created_at : null,
    currency: row.currency,
    seller: { name: organization.name, lines: [organization.email, organization.website].filter((line): line is string => line !== null) },
    buyer: {
      // Receipts need no billing details; they fall back to the customer.
      name: row.billing_name ?? customer?.name ?? customer?.email ?? "",
      lines: addressLines(row.billing_address),
      taxId: row.tax_id?.[0] ?? null,
    },
    items: items.map((item) => ({ label: item.label, amount: item.amount })),
    subtotal: row.subtotal_amount,
    discount: row.discount_amount > 0 ? { label: discount?.name ?? "Discount", amount: row.discount_amount } : null,
    tax: { amount: row.tax_amount, rateBasisPoints: effectiveRateBasisPoints(row.tax_amount, row.net_amount) },
    total: row.total_amount,
  };
}

export const renderOrderDocument = async (db: Executor, row: OrderEmbeddedRow, kind: BillingDocument["kind"]): Promise<Buffer> =>
  renderBillingPdf(await orderBillingDocument(db, row, kind));
