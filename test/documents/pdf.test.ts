import { describe, expect, it } from "vitest";
import { documentLanguage } from "../../src/documents/language.ts";
import { renderBillingPdf } from "../../src/documents/pdf.ts";
import { pdfText as text } from "../helpers/pdf.ts";
import { invoice } from "./fixtures.ts";

const lines = async (doc: typeof invoice) => (await text(await renderBillingPdf(doc))).split("\n").map((line) => line.trim());

describe("billing PDFs", () => {
  it("prints the seller's and buyer's details, the dates, each line with its tax, and the totals by rate", async () => {
    const pdf = await renderBillingPdf(invoice);
    expect(pdf.subarray(0, 5).toString()).toBe("%PDF-");
    const content = (await text(pdf)).split("\n").map((line) => line.trim());
    expect(content).toEqual(
      expect.arrayContaining([
        "Invoice number: ACME-AAAAAAAB-0042",
        "Date of issue: November 1, 2026",
        "Date of supply: November 1, 2026",
        "Date paid: November 1, 2026",
        "Acme Tools SAS",
        "1 rue de la Paix",
        "75002 Paris",
        "France",
        "Tax ID: FR40303265045",
        "support@acme.test",
        "Ada Lovelace GmbH",
        "10117 Berlin",
        "Germany",
        "Tax ID: DE136695976",
        "Business customer",
        "Description Qty Unit price Tax rate Tax Amount",
        "Pro license 1 €100.00 20% €16.00 €100.00",
        "Subtotal €100.00",
        "Discount -€20.00",
        "Tax 20% on €80.00 €16.00",
        "Total €96.00",
        "Amount paid €96.00",
      ]),
    );
    expect(content.join("\n")).not.toContain("Amount due");
    expect(content.join("\n")).not.toContain("Reverse charge");
  });

  it("says «Amount due» only on an unpaid invoice, and prints no discount row without a discount", async () => {
    const content = await lines({ ...invoice, paidAt: null, discount: 0 });
    expect(content).toContain("Amount due €96.00");
    expect(content.join("\n")).not.toMatch(/Amount paid|Date paid|Discount/);
  });

  it("labels receipts as paid", async () => {
    const content = await lines({ ...invoice, kind: "receipt", number: "RCPT-AAAAAAAB-0001", paidAt: new Date("2026-11-02T00:00:00Z") });
    expect(content).toEqual(
      expect.arrayContaining(["Receipt number: RCPT-AAAAAAAB-0001", "Date paid: November 2, 2026", "Amount paid €96.00"]),
    );
  });

  it("carries the reverse-charge statement and both VAT numbers when the buyer accounts for the VAT", async () => {
    const content = await lines({
      ...invoice,
      lines: [{ ...invoice.lines[0]!, taxRateBasisPoints: 0, taxAmount: 0 }],
      taxes: [{ rateBasisPoints: 0, base: 8_000, amount: 0 }],
      total: 8_000,
      reverseCharge: { sellerVatNumber: "FR40303265045", buyerVatNumber: "DE136695976" },
    });
    expect(content).toEqual(
      expect.arrayContaining([
        "Reverse charge: VAT to be accounted for by the recipient (Article 196, Council Directive 2006/112/EC).",
        "Seller's VAT number: FR40303265045",
        "Buyer's VAT number: DE136695976",
        "Tax 0% on €80.00 €0.00",
      ]),
    );
  });

  it("formats numbers, dates and countries for the buyer's locale, in its language's words", async () => {
    const content = await lines({ ...invoice, locale: "de-DE" });
    expect(content).toEqual(
      expect.arrayContaining([
        "Rechnung",
        "Rechnungsdatum: 1. November 2026",
        "Frankreich",
        "Deutschland",
        "Gesamtbetrag 96,00 €",
        "Steuer 20 % auf 80,00 € 16,00 €",
      ]),
    );
    // An unknown or malformed tag falls back to the default locale.
    expect(await lines({ ...invoice, locale: "not a locale!" })).toContain("Total €96.00");
  });

  it("writes English words where the locale's language has no translation, its formats still the locale's", async () => {
    const content = await lines({ ...invoice, locale: "nl-NL" });
    expect(content).toContain("Invoice");
    expect(content.join("\n")).toMatch(/Date of issue: 1 november 2026/);
  });

  it.each([
    ["fr-FR", ["Facture", "Numéro de facture: ACME-AAAAAAAB-0042", "Date d'émission: 1 novembre 2026", "Montant payé 96,00 €"]],
    ["fr-CA", ["Facture", "Montant payé 96,00 €"]],
    ["de-AT", ["Rechnung", "Rechnungsnummer: ACME-AAAAAAAB-0042", "Bezahlter Betrag € 96,00"]],
    ["ja-JP", ["請求書", "請求書番号: ACME-AAAAAAAB-0042", "発行日: 2026年11月1日"]],
  ])("writes a %s document in that language", async (locale, expected) => {
    const content = (await lines({ ...invoice, locale })).map((line) => line.replace(/\u00a0|\u202f/g, " "));
    expect(content).toEqual(expect.arrayContaining(expected));
  });

  it("prints a credit note: its own number, the invoice it corrects, the refund date and negative amounts said to be credited", async () => {
    const content = await lines({
      ...invoice,
      kind: "credit_note",
      number: "ACME-CN-0001",
      issuedAt: new Date("2026-11-05T09:00:00Z"),
      paidAt: null,
      lines: [{ description: "Pro license", quantity: 1, unitAmount: -1_000, amount: -1_000, taxRateBasisPoints: 2_000, taxAmount: -200 }],
      subtotal: -1_000,
      discount: 0,
      taxes: [{ rateBasisPoints: 2_000, base: -1_000, amount: -200 }],
      total: -1_200,
      credits: { invoiceNumber: "ACME-AAAAAAAB-0042", invoiceIssuedAt: invoice.issuedAt, refundedAt: new Date("2026-11-04T12:00:00Z") },
    });
    expect(content).toEqual(
      expect.arrayContaining([
        "Credit note",
        "Credit note number: ACME-CN-0001",
        "Credited invoice: ACME-AAAAAAAB-0042 of November 1, 2026",
        "Date of issue: November 5, 2026",
        "Date refunded: November 4, 2026",
        "Subtotal -€10.00",
        "Tax 20% on -€10.00 -€2.00",
        "Total credited -€12.00",
      ]),
    );
    expect(content.join("\n")).not.toMatch(/Amount paid|Amount due|Date paid/);
  });

  it("lists a receipt's refunds by date, then what stays paid", async () => {
    const content = await lines({
      ...invoice,
      kind: "receipt",
      refunds: [
        { at: new Date("2026-11-03T00:00:00Z"), amount: 1_200 },
        { at: new Date("2026-11-04T00:00:00Z"), amount: 600 },
      ],
    });
    expect(content).toEqual(
      expect.arrayContaining([
        "Amount paid €96.00",
        "Refunded November 3, 2026 -€12.00",
        "Refunded November 4, 2026 -€6.00",
        "Net paid €78.00",
      ]),
    );
  });

  it("renders the same document to the same bytes, so a repeated job stores the same file", async () => {
    const [first, second] = [await renderBillingPdf(invoice), await renderBillingPdf(invoice)];
    expect(first.equals(second)).toBe(true);
    expect((await renderBillingPdf({ ...invoice, number: "ACME-AAAAAAAB-0043" })).equals(first)).toBe(false);
  });

  it("keeps a one-line invoice under 100 KB: only the glyphs used are embedded", async () => {
    expect((await renderBillingPdf(invoice)).length).toBeLessThan(100 * 1024);
  });
});

describe("document language", () => {
  it.each([
    [1234, "usd", "$12.34"],
    [1234, "jpy", "¥1,234"],
    [5, "eur", "€0.05"],
    [123_456_789, "gbp", "£1,234,567.89"],
    [1000, "kwd", "KWD 1.000"],
  ])("%i %s → %s", (amount, currency, expected) =>
    expect(
      documentLanguage(null)
        .money(amount, currency)
        .replace(/\u00a0/g, " "),
    ).toBe(expected),
  );

  it("formats basis-point rates", () => {
    const { rate } = documentLanguage(null);
    expect([rate(2000), rate(750), rate(0), rate(1234)]).toEqual(["20%", "7.5%", "0%", "12.34%"]);
  });
});
