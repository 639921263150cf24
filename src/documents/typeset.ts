import { faceFor, fontFace, type FontKey } from "./fonts.ts";
import { bidiLevels, scriptOf, visualOrder, type Script } from "./scripts.ts";

/** A piece of one line drawn with one face at one bidirectional level. */
export interface Segment {
  text: string;
  face: FontKey;
  level: number;
}

/**
 * pdfkit lays text out a word at a time (and caches the words) unless it is given OpenType
 * features; a right-to-left run laid out so would keep its words in logical order. With features
 * (an empty list: the script's defaults) the run is laid out whole, and fontkit orders it.
 */
const layoutOptions = (segment: Segment) => (segment.level % 2 === 1 ? { features: [] } : {});

const hasRightToLeft = (text: string) => Array.from(text).some((char) => scriptOf(char) === "arabic" || scriptOf(char) === "hebrew");

/**
 * One line of text as the segments to draw from left to right. Each character takes the face of
 * its script; spaces, digits and punctuation stay in the face of the text before them when it has
 * them, so a name is not cut into pieces. Right-to-left segments are handed to the layout engine
 * in logical order (fontkit shapes Arabic and lays Hebrew and Arabic out right to left itself);
 * a right-to-left segment of neutral characters alone is reversed here.
 */
export function lineSegments(text: string): Segment[] {
  const chars = Array.from(text);
  const scripts = chars.map(scriptOf);
  const context = { kana: scripts.includes("kana"), hangul: scripts.includes("hangul") };
  const levels = bidiLevels(chars, scripts);
  const segments: Segment[] = [];
  let previous: FontKey | null = null;
  chars.forEach((char, i) => {
    const script: Script = scripts[i] ?? "common";
    const codePoint = char.codePointAt(0) ?? 0;
    const face =
      script === "common" && previous !== null && fontFace(previous).hasGlyphForCodePoint(codePoint)
        ? previous
        : faceFor(codePoint, script, context);
    previous = face;
    const level = levels[i] ?? 0;
    const last = segments.at(-1);
    if (last && last.face === face && last.level === level) last.text += char;
    else segments.push({ text: char, face, level });
  });
  return visualOrder(segments).map((segment) =>
    segment.level % 2 === 1 && !hasRightToLeft(segment.text) ? { ...segment, text: Array.from(segment.text).reverse().join("") } : segment,
  );
}

export type Align = "left" | "right";

/** Draws text in the faces of its scripts on a pdfkit document; positions in points. */
export class Typesetter {
  private readonly pdf: PDFKit.PDFDocument;

  constructor(pdf: PDFKit.PDFDocument) {
    this.pdf = pdf;
  }

  private segmentWidth(segment: Segment, size: number): number {
    return this.pdf.font(segment.face).fontSize(size).widthOfString(segment.text, layoutOptions(segment));
  }

  width(text: string, size: number): number {
    return lineSegments(text).reduce((sum, segment) => sum + this.segmentWidth(segment, size), 0);
  }

  /** One line with its baseline at `baseline`, starting at `x` or ending at `x + width`. */
  line(text: string, x: number, baseline: number, size: number, align: Align = "left", width = 0): void {
    const segments = lineSegments(text);
    const widths = segments.map((segment) => this.segmentWidth(segment, size));
    let left = align === "right" ? x + width - widths.reduce((a, b) => a + b, 0) : x;
    segments.forEach((segment, i) => {
      this.pdf
        .font(segment.face)
        .fontSize(size)
        .text(segment.text, left, baseline, {
          lineBreak: false,
          baseline: "alphabetic",
          ...layoutOptions(segment),
        });
      left += widths[i] ?? 0;
    });
  }

  /**
   * Breaks text into lines no wider than `width`: at spaces, and between any two characters of a
   * word that is wider than the line by itself (Chinese and Japanese put no spaces between words).
   */
  wrap(text: string, size: number, width: number): string[] {
    const lines: string[] = [];
    let current = "";
    const tokens = text.split(/(?<= )/u).flatMap((token) => (this.width(token, size) > width ? Array.from(token) : [token]));
    for (const token of tokens) {
      if (current !== "" && this.width(current + token, size) > width) {
        lines.push(current.trimEnd());
        current = token.trimStart();
      } else current += token;
    }
    if (current !== "" || lines.length === 0) lines.push(current.trimEnd());
    return lines;
  }
}
