import PDFDocument from "pdfkit";
import type { StoredAddress } from "../schema/address.ts";
import { registerFaces } from "./fonts.ts";
import { documentLanguage, type DocumentLanguage, type Words } from "./language.ts";
import { Typesetter, type Align } from "./typeset.ts";

/** A party to the sale as the document names it. */
export interface DocumentParty {
  name: string;
  address: StoredAddress | null;
  /** Tax registration numbers, printed as they are. */
  taxIds: string[];
  /** Email, website: how to reach the party. */
  contact: string[];
}

export interface DocumentLine {
  description: string;
  quantity: number;
  unitAmount: number;
  amount: number;
  /** Null where no tax applies to the line. */
  taxRateBasisPoints: number | null;
  taxAmount: number;
}

/**
 * Everything printed on an invoice, a receipt or a credit note; amounts in minor units of
 * `currency`. A credit note's lines, subtotal, taxes and total are negative: what is credited.
 */
export interface BillingDocument {
  kind: "invoice" | "receipt" | "credit_note";
  number: string;
  issuedAt: Date;
  suppliedAt: Date;
  /** When the payment was taken; null while the order is unpaid (an invoice then says what is due). */
  paidAt: Date | null;
  currency: string;
  /** The buyer's locale (BCP 47): numbers, dates and countries follow it; null for the default. */
  locale: string | null;
  /** The seller, with its logo (PNG or JPEG bytes, `logo.ts`) where it has one. */
  seller: DocumentParty & { logo: Buffer | null };
  buyer: DocumentParty & { isBusiness: boolean };
  lines: DocumentLine[];
  subtotal: number;
  /** The discount off the subtotal, 0 when there is none. */
  discount: number;
  /** The tax by rate: the taxed amount (after discount) and the tax on it. */
  taxes: { rateBasisPoints: number; base: number; amount: number }[];
  total: number;
  /** Set when the buyer accounts for the VAT: the document then carries the statement and both numbers. */
  reverseCharge: { sellerVatNumber: string | null; buyerVatNumber: string } | null;
  /** A receipt's refunds since the payment, oldest first, each tax included; absent or empty for none. */
  refunds?: { at: Date; amount: number }[];
  /** A credit note's reference: the invoice it corrects, and when the money went back. */
  credits?: { invoiceNumber: string; invoiceIssuedAt: Date; refundedAt: Date };
}

/** The title and number label of each kind of document. */
const HEADINGS = {
  invoice: { title: "invoice", number: "invoiceNumber" },
  receipt: { title: "receipt", number: "receiptNumber" },
  credit_note: { title: "creditNote", number: "creditNoteNumber" },
} as const satisfies Record<BillingDocument["kind"], { title: keyof Words; number: keyof Words }>;

const PAGE = { width: 595.28, height: 841.89, margin: 50 };
const CONTENT = PAGE.width - 2 * PAGE.margin;
const SIZE = { title: 20, name: 11, body: 9, small: 8 };
const LEADING = 1.45;

/** The item table's columns: x, width and alignment. */
const COLUMNS = {
  description: { x: 50, width: 185, align: "left" },
  quantity: { x: 235, width: 40, align: "right" },
  unitPrice: { x: 275, width: 75, align: "right" },
  taxRate: { x: 350, width: 50, align: "right" },
  tax: { x: 400, width: 65, align: "right" },
  amount: { x: 465, width: 80, align: "right" },
} as const satisfies Record<string, { x: number; width: number; align: Align }>;

/** Lays the document out top to bottom, starting a new page when the next block does not fit. */
class Layout {
  readonly type: Typesetter;
  private readonly pdf: PDFKit.PDFDocument;
  y = PAGE.margin;

  constructor(pdf: PDFKit.PDFDocument) {
    this.pdf = pdf;
    this.type = new Typesetter(pdf);
  }

  private room(height: number): void {
    if (this.y + height <= PAGE.height - PAGE.margin) return;
    this.pdf.addPage();
    this.y = PAGE.margin;
  }

  /** Lines of text in one column, wrapped to its width; returns where the column ends. */
  column(lines: { text: string; size: number }[], x: number, width: number, top = this.y): number {
    let y = top;
    for (const { text, size } of lines) {
      for (const wrapped of this.type.wrap(text, size, width)) {
        this.type.line(wrapped, x, y + size, size);
        y += size * LEADING;
      }
    }
    return y;
  }

  /** One row of cells, each wrapped within its column; the row is as tall as its tallest cell. */
  row(cells: { text: string; x: number; width: number; align: Align }[], size: number): void {
    const wrapped = cells.map((cell) => this.type.wrap(cell.text, size, cell.width));
    const height = Math.max(...wrapped.map((lines) => lines.length)) * size * LEADING;
    this.room(height);
    cells.forEach((cell, i) =>
      (wrapped[i] ?? []).forEach((line, n) =>
        this.type.line(line, cell.x, this.y + size + n * size * LEADING, size, cell.align, cell.width),
      ),
    );
    this.y += height;
  }

  /** A label and an amount, right-aligned in the totals column. */
  total(label: string, amount: string, size = SIZE.body): void {
    this.row(
      [
        { text: label, x: 250, width: 210, align: "right" },
        { text: amount, x: COLUMNS.amount.x, width: COLUMNS.amount.width, align: "right" },
      ],
      size,
    );
  }

  /**
   * The logo in the top right corner, fitted into a box beside the title. An image pdfkit cannot
   * read is left out rather than failing the document: the bytes were checked only for their
   * signature.
   */
  logo(image: Buffer): void {
    const box = { width: 120, height: 48 };
    try {
      this.pdf.image(image, PAGE.width - PAGE.margin - box.width, PAGE.margin, {
        fit: [box.width, box.height],
        align: "right",
      });
    } catch {
      // Not drawn: see above.
    }
  }

  rule(): void {
    this.pdf
      .moveTo(PAGE.margin, this.y)
      .lineTo(PAGE.width - PAGE.margin, this.y)
      .lineWidth(0.5)
      .strokeColor("#cccccc")
      .stroke();
    this.y += 4;
  }

  gap(points: number): void {
    this.y += points;
  }
}

const partyLines = (party: DocumentParty, language: DocumentLanguage): { text: string; size: number }[] => [
  { text: party.name, size: SIZE.name },
  ...language.addressLines(party.address).map((text) => ({ text, size: SIZE.body })),
  ...party.taxIds.map((id) => ({ text: `${language.words.taxId}: ${id}`, size: SIZE.body })),
  ...party.contact.map((text) => ({ text, size: SIZE.body })),
];

function draw(layout: Layout, doc: BillingDocument, language: DocumentLanguage): void {
  const { words } = language;
  const money = (amount: number) => language.money(amount, doc.currency);

  const heading = HEADINGS[doc.kind];
  if (doc.seller.logo) layout.logo(doc.seller.logo);
  layout.y = layout.column([{ text: words[heading.title], size: SIZE.title }], PAGE.margin, CONTENT);
  layout.gap(SIZE.title * 0.6);
  layout.y = layout.column(
    [
      [words[heading.number], doc.number],
      ...(doc.credits
        ? [[words.creditedInvoice, words.invoiceOf(doc.credits.invoiceNumber, language.date(doc.credits.invoiceIssuedAt))]]
        : []),
      [words.dateOfIssue, language.date(doc.issuedAt)],
      [words.dateOfSupply, language.date(doc.suppliedAt)],
      ...(doc.paidAt ? [[words.datePaid, language.date(doc.paidAt)]] : []),
      ...(doc.credits ? [[words.dateRefunded, language.date(doc.credits.refundedAt)]] : []),
    ].map(([label, value]) => ({ text: `${label}: ${value}`, size: SIZE.body })),
    PAGE.margin,
    CONTENT,
  );
  layout.gap(SIZE.body * 2);

  const half = CONTENT / 2 - 10;
  const sellerEnd = layout.column(partyLines(doc.seller, language), PAGE.margin, half);
  const buyerEnd = layout.column(
    [
      { text: words.billTo, size: SIZE.small },
      ...partyLines(doc.buyer, language),
      ...(doc.buyer.isBusiness ? [{ text: words.businessCustomer, size: SIZE.small }] : []),
    ],
    PAGE.width / 2 + 10,
    half,
  );
  layout.y = Math.max(sellerEnd, buyerEnd);
  layout.gap(SIZE.body * 2);

  const cell = (column: keyof typeof COLUMNS, text: string) => ({ text, ...COLUMNS[column] });
  layout.row(
    [
      cell("description", words.description),
      cell("quantity", words.quantity),
      cell("unitPrice", words.unitPrice),
      cell("taxRate", words.taxRate),
      cell("tax", words.tax),
      cell("amount", words.amount),
    ],
    SIZE.small,
  );
  layout.rule();
  for (const line of doc.lines) {
    layout.row(
      [
        cell("description", line.description),
        cell("quantity", language.number(line.quantity)),
        cell("unitPrice", money(line.unitAmount)),
        cell("taxRate", line.taxRateBasisPoints === null ? "–" : language.rate(line.taxRateBasisPoints)),
        cell("tax", money(line.taxAmount)),
        cell("amount", money(line.amount)),
      ],
      SIZE.body,
    );
  }
  layout.rule();
  layout.gap(SIZE.body * 0.5);

  layout.total(words.subtotal, money(doc.subtotal));
  // As the hosted service prints it: one row, the amount negative, only when there is a discount.
  if (doc.discount > 0) layout.total(words.discount, money(-doc.discount));
  for (const tax of doc.taxes) layout.total(words.taxOn(language.rate(tax.rateBasisPoints), money(tax.base)), money(tax.amount));
  if (doc.kind === "credit_note") {
    // Negative, and said in words: this document takes the amount back, it asks for nothing.
    layout.total(words.totalCredited, money(doc.total), SIZE.name);
  } else {
    layout.total(words.total, money(doc.total), SIZE.name);
    // Only an unpaid order's invoice asks for money; everything paid says so.
    layout.total(doc.paidAt ? words.amountPaid : words.amountDue, money(doc.total), SIZE.name);
  }
  const refunds = doc.refunds ?? [];
  for (const refund of refunds) layout.total(words.refundedOn(language.date(refund.at)), money(-refund.amount), SIZE.name);
  if (refunds.length > 0) {
    layout.total(words.netPaid, money(doc.total - refunds.reduce((sum, refund) => sum + refund.amount, 0)), SIZE.name);
  }

  if (doc.reverseCharge) {
    layout.gap(SIZE.body * 2);
    layout.y = layout.column(
      [
        { text: `${words.reverseCharge}: ${words.reverseChargeStatement}`, size: SIZE.body },
        ...(doc.reverseCharge.sellerVatNumber
          ? [{ text: `${words.sellerVatNumber}: ${doc.reverseCharge.sellerVatNumber}`, size: SIZE.body }]
          : []),
        { text: `${words.buyerVatNumber}: ${doc.reverseCharge.buyerVatNumber}`, size: SIZE.body },
      ],
      PAGE.margin,
      CONTENT,
    );
  }
}

/**
 * Renders the document as a PDF. The layout is deliberately plain, every figure printed as text
 * so it can be read back and checked; each run of text is drawn in the face of its script, and
 * only the glyphs used are embedded. The same document always renders to the same bytes.
 */
export function renderBillingPdf(doc: BillingDocument): Promise<Buffer> {
  const language = documentLanguage(doc.locale);
  const title = `${language.words[HEADINGS[doc.kind].title]} ${doc.number}`;
  const pdf = new PDFDocument({
    size: "A4",
    margin: PAGE.margin,
    // A fixed creation date (the file id derives from it) makes the bytes a function of the
    // document alone: a job that renders twice stores the same file.
    info: { Title: title, CreationDate: doc.issuedAt },
  });
  const chunks: Buffer[] = [];
  pdf.on("data", (chunk: Buffer) => chunks.push(chunk));
  const done = new Promise<Buffer>((resolve, reject) => {
    pdf.on("end", () => resolve(Buffer.concat(chunks)));
    pdf.on("error", reject);
  });
  registerFaces(pdf);
  draw(new Layout(pdf), doc, language);
  pdf.end();
  return done;
}
