import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { openSync, type Font } from "fontkit";
import type { Script } from "./scripts.ts";

// pdfkit embeds a fontkit font object as readily as a file (its font factory takes anything with
// `layout`); the published types only list files and buffers.
declare global {
  // Declaration merging into @types/pdfkit's namespace is the one way to add the overload.
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace PDFKit.Mixins {
    interface PDFFont {
      registerFont(name: string, src: Font): this;
    }
  }
}

/**
 * The faces the documents print with, one Noto face per writing system, each shipped by an npm
 * package (the file's path is relative to the package's entry module): the regular weight only,
 * sizes carry the hierarchy. The Chinese, Japanese and Korean faces are TrueType: pdfkit subsets
 * glyf outlines in a few milliseconds, where the CFF faces of the same fonts cost a full index of
 * their tens of thousands of subroutines in every document (three times the time, four times the bytes).
 */
const FACES = {
  // Latin with its diacritics, Greek and Cyrillic, and the currency signs.
  sans: { pkg: "@embedpdf/fonts-latin", file: "../fonts/NotoSans-Regular.ttf" },
  arabic: { pkg: "@embedpdf/fonts-arabic", file: "../fonts/NotoNaskhArabic-Regular.ttf" },
  hebrew: { pkg: "@embedpdf/fonts-hebrew", file: "../fonts/NotoSansHebrew-Regular.ttf" },
  japanese: { pkg: "@expo-google-fonts/noto-sans-jp", file: "400Regular/NotoSansJP_400Regular.ttf" },
  korean: { pkg: "@expo-google-fonts/noto-sans-kr", file: "400Regular/NotoSansKR_400Regular.ttf" },
  chinese: { pkg: "@expo-google-fonts/noto-sans-sc", file: "400Regular/NotoSansSC_400Regular.ttf" },
} as const;
export type FontKey = keyof typeof FACES;
export const FONT_KEYS = Object.keys(FACES) as FontKey[];

const require = createRequire(import.meta.url);
const loaded = new Map<FontKey, Font>();

/**
 * The face, parsed once per process and shared by every document (a CJK face is megabytes: read
 * per document, it would dominate the render time; parsed per document, its layout tables cost
 * seven times the render). Some packages export only their entry module, so the file is found from it.
 */
export function fontFace(key: FontKey): Font {
  const cached = loaded.get(key);
  if (cached) return cached;
  const { pkg, file } = FACES[key];
  const font = openSync(join(dirname(require.resolve(pkg)), file));
  if (!("hasGlyphForCodePoint" in font)) throw new Error(`${file} is a font collection, not a font`);
  keepCharactersOfGlyphs(font);
  loaded.set(key, font);
  return font;
}

/**
 * fontkit keeps one glyph object per glyph, holding the characters it was first asked for, and
 * pdfkit writes each document's text layer (its ToUnicode map) from those characters. Subsetting
 * asks for the parts of a composed glyph (the O inside an Ö) without characters; in a face shared
 * across documents, that glyph would then stay without them, and every later document would lose
 * the letter from its text (drawn, but missing when the text is copied, searched or read aloud).
 * So a glyph asked for with its characters gets them when it had none.
 */
function keepCharactersOfGlyphs(font: Font): void {
  const getGlyph = font.getGlyph.bind(font);
  font.getGlyph = (glyphId, codePoints = []) => {
    const glyph = getGlyph(glyphId, codePoints);
    if (glyph && glyph.codePoints.length === 0 && codePoints.length > 0) glyph.codePoints = codePoints;
    return glyph;
  };
}

/** What else is in the string: Han characters read as Japanese beside kana, as Korean beside hangul. */
export interface ScriptContext {
  kana: boolean;
  hangul: boolean;
}

/** The faces to try for a character of the script, best first. */
function candidates(script: Script, context: ScriptContext): readonly FontKey[] {
  switch (script) {
    case "kana":
      return ["japanese", "chinese", "korean"];
    case "hangul":
      return ["korean"];
    case "han":
      if (context.kana) return ["japanese", "chinese", "korean"];
      if (context.hangul) return ["korean", "chinese", "japanese"];
      return ["chinese", "japanese", "korean"];
    case "arabic":
      return ["arabic"];
    case "hebrew":
      return ["hebrew"];
    default:
      return ["sans"];
  }
}

/**
 * The face that draws this character: the script's own face when it has the glyph, else the first
 * face that has it (a symbol only one face carries), else the sans face (which draws a missing-glyph box).
 */
export function faceFor(codePoint: number, script: Script, context: ScriptContext): FontKey {
  const has = (key: FontKey) => fontFace(key).hasGlyphForCodePoint(codePoint);
  return candidates(script, context).find(has) ?? FONT_KEYS.find(has) ?? "sans";
}

/** Makes every face available to the document under its key; pdfkit embeds only those drawn with. */
export function registerFaces(pdf: PDFKit.PDFDocument): void {
  for (const key of FONT_KEYS) pdf.registerFont(key, fontFace(key));
}
