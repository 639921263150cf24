import { Type, type TSchema } from "@sinclair/typebox";
import { ErrorBody, ValidationErrorBody } from "../../http/errors.ts";
import { responses } from "../../http/route-auth.ts";
import { DateTime, Nullable } from "../../schema/primitives.ts";

const documentLink = (title: string, description: string, urlDescription: string) =>
  Type.Object({ url: Type.String({ description: urlDescription }) }, { title, description });

export const OrderInvoice = documentLink("OrderInvoice", "Order's invoice data.", "The URL to the invoice.");
export const OrderReceipt = documentLink("OrderReceipt", "Order's receipt data.", "The URL to the receipt PDF.");
export const CustomerOrderInvoice = documentLink("CustomerOrderInvoice", "Order's invoice data.", "The URL to the invoice.");
export const CustomerOrderReceipt = documentLink("CustomerOrderReceipt", "Order's receipt data.", "The URL to the receipt PDF.");

/** The 202 of an invoice request carries the JSON `null`, as the hosted service answers. */
export const generateInvoiceResponses = () => ({
  ...responses({ 202: Type.Null({ description: "Invoice generation scheduled." }), 409: ErrorBody }, { notFound: true }),
  // Schema failures and the missing-billing-details refusal share the status.
  422: Type.Union([ValidationErrorBody, ErrorBody]),
});

/** Ours: the link to a refund's credit note (the reference has no credit notes). */
export const RefundCreditNote = documentLink("RefundCreditNote", "A refund's credit note.", "The URL to the credit note PDF.");

/** An order's credit note, as the customer portal lists them. */
export const CustomerOrderCreditNote = Type.Object(
  {
    number: Type.String({ description: "The credit note number, in the seller's credit note sequence." }),
    created_at: DateTime({ description: "When the credit note was issued." }),
    refunded_amount: Type.Integer({ description: "The refunded amount before tax, in cents." }),
    refunded_tax_amount: Type.Integer({ description: "The tax refunded with it, in cents." }),
    url: Nullable(Type.String(), { description: "The URL to the credit note PDF; null while it is being rendered." }),
  },
  { title: "CustomerOrderCreditNote", description: "A credit note of the order: one per refund once the order's invoice exists." },
);
export const CustomerOrderCreditNotes = Type.Object({ items: Type.Array(CustomerOrderCreditNote) }, { title: "CustomerOrderCreditNotes" });

/** 200 with a link once rendered; 202 (empty body) while the render is pending. */
const renderedOrPending = <T extends TSchema>(link: T, pending: string) => ({
  ...responses({ 200: link }, { notFound: true }),
  202: { description: pending, type: "null" },
});
export const receiptResponses = <T extends typeof OrderReceipt>(link: T) => renderedOrPending(link, "Receipt generation in progress.");
export const creditNoteResponses = () => renderedOrPending(RefundCreditNote, "Credit note generation in progress.");
