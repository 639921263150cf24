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

  it("formats numbers, dates and countries for the buyer's locale, in English words", async () => {
    const content = await lines({ ...invoice, locale: "de-DE" });
    expect(content).toEqual(
      expect.arrayContaining([
        "Date of issue: 1. November 2026",
        "Frankreich",
        "Deutschland",
        "Total 96,00 €",
        "Tax 20 % on 80,00 € 16,00 €",
      ]),
    );
    // An unknown or malformed tag falls back to the default locale.
    expect(await lines({ ...invoice, locale: "not a locale!" })).toContain("Total €96.00");
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
