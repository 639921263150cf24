import { describe, expect, it } from "vitest";
import { renderBillingPdf } from "../../src/documents/pdf.ts";
import { pdfText, popplerAvailable, popplerText } from "../helpers/pdf.ts";
import { invoice } from "./fixtures.ts";

/**
 * The faces are parsed once per process and shared by every document. Noto Sans composes Ö, Ý
 * and Ž from O, Y and Z and their accents: embedding the first document's Ö reaches the O with no
 * character. This file renders that document first (nothing else in its process has drawn an O,
 * a Y or a Z before), then one with the plain letters, whose text must read back whole.
 */
describe("faces shared by the documents of a process", () => {
  it("keeps a letter in a later document's text after an earlier document embedded it only as part of an accented letter", async () => {
    const accented = await renderBillingPdf({ ...invoice, buyer: { ...invoice.buyer, name: "Östen Ýrr Žak" } });
    expect(await pdfText(accented)).toContain("Östen Ýrr Žak");

    const plain = await renderBillingPdf({ ...invoice, buyer: { ...invoice.buyer, name: "OYZ Software" } });
    expect(await pdfText(plain)).toContain("OYZ Software");
    if (popplerAvailable) expect(popplerText(plain)).toContain("OYZ Software");
  });
});
