import { PDFParse } from "pdf-parse";

/** The text a PDF reader extracts from the file: proof that it opens and says what it should. */
export async function pdfText(pdf: Buffer): Promise<string> {
  const parser = new PDFParse({ data: new Uint8Array(pdf) });
  try {
    return (await parser.getText()).text;
  } finally {
    await parser.destroy();
  }
}
