import { Type } from "@sinclair/typebox";
import { ErrorBody, ValidationErrorBody } from "../../kit/errors.ts";
import { responses } from "../../kit/routes.ts";

const documentLink = (title: string, description: string, urlDescription: string) =>
  Type.Object({ url: Type.String({ description: urlDescription }) }, { title, description });

export const OrderInvoice = documentLink("OrderInvoice", "Order's invoice data.", "The URL to the invoice.");
export const OrderReceipt = documentLink("OrderReceipt", "Order's receipt data.", "The URL to the receipt PDF.");
export const CustomerOrderInvoice = documentLink("CustomerOrderInvoice", "Order's invoice data.", "The URL to the invoice.");
export const CustomerOrderReceipt = documentLink("CustomerOrderReceipt", "Order's receipt data.", "The URL to the receipt PDF.");

/** The 202 of an invoice request carries the JSON `null`, as the anchor answers. */
export const generateInvoiceResponses = () => ({
  ...responses({ 202: Type.Null({ description: "Invoice generation scheduled." }), 409: ErrorBody }, { notFound: true }),
  // Schema failures and the missing-billing-details refusal share the status.
  422: Type.Union([ValidationErrorBody, ErrorBody]),
});

/** 200 with a link once rendered; 202 (empty body) while the render is pending. */
export const receiptResponses = <T extends typeof OrderReceipt>(link: T) => ({
  ...responses({ 200: link }, { notFound: true }),
  202: { description: "Receipt generation in progress.", type: "null" },
});
