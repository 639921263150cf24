import { describe, expect, it } from "vitest";
import { formatMoney, formatRate } from "../../src/documents/money-format.ts";
import { renderBillingPdf, type BillingDocument } from "../../src/documents/pdf.ts";
import { pdfText as text } from "../helpers/pdf.ts";

const invoice: BillingDocument = {
  kind: "invoice",
  number: "ACME-AAAAAAAB-0042",
  issuedAt: new Date("2026-11-01T10:00:00Z"),
  currency: "eur",
  seller: { name: "Acme Tools", lines: ["support@acme.test"] },
  buyer: { name: "Ada Lovelace Ltd", lines: ["12 Analytical Row", "75001 Paris", "FR"], taxId: "FR61954506077" },
  items: [{ label: "Pro license", amount: 10_000 }],
  subtotal: 10_000,
  discount: { label: "LAUNCH20", amount: 2_000 },
  tax: { amount: 1_600, rateBasisPoints: 2_000 },
  total: 9_600,
};

describe("billing PDFs", () => {
  it("renders a PDF a reader opens, with the number, buyer, lines and totals", async () => {
    const pdf = await renderBillingPdf(invoice);
    expect(pdf.subarray(0, 5).toString()).toBe("%PDF-");
    const content = await text(pdf);
    for (const expected of [
      "Invoice",
      "ACME-AAAAAAAB-0042",
      "2026-11-01",
      "Acme Tools",
      "Ada Lovelace Ltd",
      "FR61954506077",
      "Pro license",
      "€100.00",
      "-€20.00",
      "Tax (20%)",
      "€16.00",
      "Total due",
      "€96.00",
    ]) {
      expect(content).toContain(expected);
    }
  });

  it("renders the same document to the same bytes, so a repeated job stores the same file", async () => {
    const [first, second] = [await renderBillingPdf(invoice), await renderBillingPdf(invoice)];
    expect(first.equals(second)).toBe(true);
    expect((await renderBillingPdf({ ...invoice, number: "ACME-AAAAAAAB-0043" })).equals(first)).toBe(false);
  });

  it("labels receipts as paid", async () => {
    const content = await text(
      await renderBillingPdf({
        ...invoice,
        kind: "receipt",
        number: "RCPT-AAAAAAAB-0001",
        paidAt: new Date("2026-11-02T00:00:00Z"),
        discount: null,
      }),
    );
    expect(content).toContain("Receipt number: RCPT-AAAAAAAB-0001");
    expect(content).toContain("Date paid: 2026-11-02");
    expect(content).toContain("Amount paid");
  });
});

describe("money formatting", () => {
  it.each([
    [1234, "usd", "$12.34"],
    [1234, "jpy", "¥1,234"],
    [5, "eur", "€0.05"],
    [123_456_789, "gbp", "£1,234,567.89"],
    [1000, "kwd", "KWD 1.000"],
  ])("%i %s → %s", (amount, currency, expected) => expect(formatMoney(amount, currency).replace(/\u00a0/g, " ")).toBe(expected));

  it("formats basis-point rates", () => {
    expect(formatRate(2000)).toBe("20%");
    expect(formatRate(750)).toBe("7.5%");
    expect(formatRate(0)).toBe("0%");
  });
});
