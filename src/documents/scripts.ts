/** The writing systems the documents tell apart; `common` is spaces, digits, punctuation and symbols. */
export type Script = "latin" | "greek" | "cyrillic" | "han" | "kana" | "hangul" | "arabic" | "hebrew" | "common";

const PATTERNS: readonly (readonly [Script, RegExp])[] = [
  ["latin", /\p{Script=Latin}/u],
  ["cyrillic", /\p{Script=Cyrillic}/u],
  ["greek", /\p{Script=Greek}/u],
  ["han", /\p{Script=Han}/u],
  ["kana", /[\p{Script=Hiragana}\p{Script=Katakana}]/u],
  ["hangul", /\p{Script=Hangul}/u],
  ["arabic", /\p{Script=Arabic}/u],
  ["hebrew", /\p{Script=Hebrew}/u],
];

const known = new Map<string, Script>();

/** The Unicode script of one character (a code point), among those above. */
export function scriptOf(char: string): Script {
  let script = known.get(char);
  if (script === undefined) {
    script = PATTERNS.find(([, pattern]) => pattern.test(char))?.[0] ?? "common";
    known.set(char, script);
  }
  return script;
}

const isRightToLeft = (script: Script) => script === "arabic" || script === "hebrew";
const DIGIT = /\p{Nd}/u;

/** The bidirectional class of a character, reduced to what a line of a document needs. */
type BidiClass = "L" | "R" | "EN" | "N";
const bidiClass = (char: string, script: Script): BidiClass =>
  isRightToLeft(script) ? "R" : script !== "common" ? "L" : DIGIT.test(char) ? "EN" : "N";

/**
 * The embedding level of each character of one line, after the Unicode bidirectional algorithm
 * (UAX #9) without explicit embeddings: the paragraph direction from the first strong character
 * (P2, P3), numbers after left-to-right text become left-to-right (W7), neutrals between two
 * characters of one direction take it and the others the paragraph's (N1, N2; numbers count as
 * right-to-left there), then the implicit levels (I1, I2).
 */
export function bidiLevels(chars: readonly string[], scripts: readonly Script[]): number[] {
  const classes = chars.map((char, i) => bidiClass(char, scripts[i] ?? "common"));
  const paragraph = classes.find((c) => c === "L" || c === "R") === "R" ? 1 : 0;
  let strong: BidiClass = paragraph ? "R" : "L";
  const resolved = classes.map((c) => {
    if (c === "L" || c === "R") strong = c;
    return c === "EN" && strong === "L" ? "L" : c;
  });
  const direction = (c: BidiClass | undefined) => (c === "L" ? "L" : c === "R" || c === "EN" ? "R" : undefined);
  for (let i = 0; i < resolved.length;) {
    if (resolved[i] !== "N") {
      i += 1;
      continue;
    }
    let end = i;
    while (resolved[end] === "N") end += 1;
    const before = i === 0 ? (paragraph ? "R" : "L") : direction(resolved[i - 1]);
    const after = end === resolved.length ? (paragraph ? "R" : "L") : direction(resolved[end]);
    const side: BidiClass = before === after && before !== undefined ? before : paragraph ? "R" : "L";
    resolved.fill(side, i, end);
    i = end;
  }
  return resolved.map((c) => {
    if (paragraph === 0) return c === "R" ? 1 : c === "EN" ? 2 : 0;
    return c === "R" ? 1 : 2;
  });
}

/**
 * Reorders items of one line from logical to visual order (UAX #9, L2): from the highest level
 * down to the lowest odd one, every maximal sequence at that level or above is reversed.
 */
export function visualOrder<T extends { level: number }>(items: readonly T[]): T[] {
  const order = [...items];
  const levels = order.map((item) => item.level);
  const highest = Math.max(0, ...levels);
  const lowestOdd = Math.min(...levels.filter((level) => level % 2 === 1), highest + 1);
  for (let level = highest; level >= lowestOdd; level -= 1) {
    for (let i = 0; i < order.length;) {
      if ((order[i]?.level ?? 0) < level) {
        i += 1;
        continue;
      }
      let end = i;
      while (end < order.length && (order[end]?.level ?? 0) >= level) end += 1;
      order.splice(i, end - i, ...order.slice(i, end).reverse());
      i = end;
    }
  }
  return order;
}
