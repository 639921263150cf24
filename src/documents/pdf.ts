import PDFDocument from "pdfkit";
import { formatMoney, formatRate } from "./money-format.ts";

/** Everything printed on an invoice or a receipt; amounts in minor units of `currency`. */
export interface BillingDocument {
  kind: "invoice" | "receipt";
  number: string;
  issuedAt: Date;
  /** Receipts: when the payment was made. */
  paidAt?: Date | null;
  currency: string;
  seller: { name: string; lines: string[] };
  buyer: { name: string; lines: string[]; taxId: string | null };
  items: { label: string; amount: number }[];
  subtotal: number;
  discount: { label: string; amount: number } | null;
  tax: { amount: number; rateBasisPoints: number | null };
  total: number;
}

const dateText = (date: Date) => date.toISOString().slice(0, 10);

/**
 * Renders the document as a PDF. The layout is deliberately plain: one column, the numbers right
 * aligned, every figure printed as text so it can be read back and checked. The same document
 * always renders to the same bytes.
 */
export function renderBillingPdf(doc: BillingDocument): Promise<Buffer> {
  const pdf = new PDFDocument({
    size: "A4",
    margin: 50,
    // A fixed creation date (the file id derives from it) makes the bytes a function of the
    // document alone: a job that renders twice stores the same file.
    info: { Title: `${doc.kind === "invoice" ? "Invoice" : "Receipt"} ${doc.number}`, CreationDate: doc.issuedAt },
  });
  const chunks: Buffer[] = [];
  pdf.on("data", (chunk: Buffer) => chunks.push(chunk));
  const done = new Promise<Buffer>((resolve, reject) => {
    pdf.on("end", () => resolve(Buffer.concat(chunks)));
    pdf.on("error", reject);
  });
  const money = (amount: number) => formatMoney(amount, doc.currency);
  const right = { align: "right" as const, width: 495 };

  pdf.fontSize(20).text(doc.kind === "invoice" ? "Invoice" : "Receipt");
  pdf.moveDown(0.5).fontSize(10);
  pdf.text(`${doc.kind === "invoice" ? "Invoice number" : "Receipt number"}: ${doc.number}`);
  pdf.text(`Date of issue: ${dateText(doc.issuedAt)}`);
  if (doc.paidAt) pdf.text(`Date paid: ${dateText(doc.paidAt)}`);

  pdf.moveDown().fontSize(11).text(doc.seller.name);
  pdf.fontSize(10);
  for (const line of doc.seller.lines) pdf.text(line);

  pdf.moveDown().text("Bill to").fontSize(11).text(doc.buyer.name).fontSize(10);
  for (const line of doc.buyer.lines) pdf.text(line);
  if (doc.buyer.taxId) pdf.text(`Tax ID: ${doc.buyer.taxId}`);

  pdf.moveDown();
  const row = (label: string, amount: string) => {
    const y = pdf.y;
    pdf.text(label, 50, y, { width: 380 });
    pdf.text(amount, 50, y, right);
  };
  for (const item of doc.items) row(item.label, money(item.amount));
  pdf.moveDown();
  row("Subtotal", money(doc.subtotal));
  if (doc.discount) row(`Discount (${doc.discount.label})`, `-${money(doc.discount.amount)}`);
  row(doc.tax.rateBasisPoints === null ? "Tax" : `Tax (${formatRate(doc.tax.rateBasisPoints)})`, money(doc.tax.amount));
  pdf.fontSize(12);
  row(doc.kind === "invoice" ? "Total due" : "Amount paid", money(doc.total));
  pdf.end();
  return done;
}
