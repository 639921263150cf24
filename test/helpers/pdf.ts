import { spawnSync } from "node:child_process";
import { mkdirSync, readdirSync } from "node:fs";
import { join } from "node:path";
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

const BIDI_CONTROLS = /[\u200e\u200f\u202a-\u202e\u2066-\u2069]/gu;

/** Whether poppler's command-line tools are installed (Debian's poppler-utils; .ci/run installs them). */
export const popplerAvailable = spawnSync("pdftoppm", ["-v"]).status === 0;
export const POPPLER_MISSING = "pdftoppm/pdftotext (poppler-utils) not installed: no page PNGs in test-results/ and no poppler text check";

/**
 * The text poppler extracts, in logical order: unlike pdf.js, it reorders a line that mixes
 * right-to-left words and numbers the way the Unicode bidirectional algorithm does (the
 * directional marks it adds are removed).
 */
export function popplerText(pdf: Buffer): string {
  const result = spawnSync("pdftotext", ["-enc", "UTF-8", "-", "-"], { input: pdf });
  if (result.status !== 0) throw new Error(`pdftotext failed: ${result.stderr.toString()}`);
  return result.stdout.toString("utf8").replace(BIDI_CONTROLS, "");
}

/** Writes a PNG of every page into test-results/ (git-ignored) for a person to look at; returns the files. */
export function writePagePngs(pdf: Buffer, name: string): string[] {
  const dir = join(process.cwd(), "test-results");
  mkdirSync(dir, { recursive: true });
  const prefix = join(dir, name);
  const result = spawnSync("pdftoppm", ["-r", "100", "-png", "-", prefix], { input: pdf });
  if (result.status !== 0) throw new Error(`pdftoppm failed: ${result.stderr.toString()}`);
  return readdirSync(dir)
    .filter((file) => file.startsWith(`${name}-`) && file.endsWith(".png"))
    .map((file) => join(dir, file));
}
