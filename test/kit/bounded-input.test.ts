import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { INPUT_ECHO_LIMITS, boundInput } from "../../src/http/bounded-input.ts";
import { RequestValidationError, fieldIssue } from "../../src/http/errors.ts";
import { nestingOverflowAt } from "../../src/http/json-body.ts";

describe("nestingOverflowAt", () => {
  it("finds the first container past the limit, skipping strings and escapes", () => {
    expect(nestingOverflowAt("[[[]]]", 3)).toBe(-1);
    expect(nestingOverflowAt("[[[[]]]]", 3)).toBe(3);
    expect(nestingOverflowAt('["[[[[", {"a\\"[[[": [1]}]', 3)).toBe(-1);
    expect(nestingOverflowAt('["[[[[", {"a\\"[[[": [1]}]', 2)).toBe(20);
    expect(nestingOverflowAt('{"a":{"b":{"c":{}}}}', 3)).toBe(15);
    expect(nestingOverflowAt("[]".repeat(1000), 1)).toBe(-1);
    expect(nestingOverflowAt('["\\\\", [[]]]', 2)).toBe(8); // an even run of backslashes: the quote closes the string
    expect(nestingOverflowAt('["\\\\\\"[[", [[]]]', 2)).toBe(12); // an odd run: the quote is escaped
    expect(nestingOverflowAt('["open [[[', 1)).toBe(-1);
  });

  it("answers as a character-by-character scan does, on any text of quotes, backslashes and brackets", () => {
    // The scan before strings were skipped by indexOf, kept as the oracle.
    const byCharacter = (text: string, limit: number): number => {
      let depth = 0;
      for (let i = 0; i < text.length; i++) {
        const c = text[i];
        if (c === '"') {
          for (i++; i < text.length; i++) {
            if (text[i] === "\\") i++;
            else if (text[i] === '"') break;
          }
        } else if (c === "{" || c === "[") {
          if (++depth > limit) return i;
        } else if (c === "}" || c === "]") depth--;
      }
      return -1;
    };
    const text = fc.array(fc.constantFrom('"', "\\", "[", "]", "{", "}", "a", ":", ","), { maxLength: 60 }).map((parts) => parts.join(""));
    fc.assert(
      fc.property(text, fc.integer({ min: 0, max: 4 }), (candidate, limit) => {
        expect(nestingOverflowAt(candidate, limit)).toBe(byCharacter(candidate, limit));
      }),
      { numRuns: 5000 },
    );
  });
});

describe("boundInput", () => {
  it("echoes ordinary inputs unchanged", () => {
    const input = { name: "n".repeat(129), tags: [1, 2, 3], nested: { a: { b: null } }, flag: true };
    expect(boundInput(input)).toEqual(input);
  });

  it("cuts long strings and keys", () => {
    const long = "x".repeat(INPUT_ECHO_LIMITS.stringLength + 5);
    expect(boundInput(long)).toBe(`${"x".repeat(INPUT_ECHO_LIMITS.stringLength)}…`);
    expect(Object.keys(boundInput({ [long]: 1 }) as object)).toEqual([`${"x".repeat(INPUT_ECHO_LIMITS.stringLength)}…`]);
  });

  it("counts what it leaves out of long arrays and wide objects", () => {
    const items = boundInput(Array.from({ length: 250 }, (_, i) => i)) as unknown[];
    expect(items).toHaveLength(INPUT_ECHO_LIMITS.entries + 1);
    expect(items.at(-1)).toBe("… 150 more items");
    const wide = boundInput(Object.fromEntries(Array.from({ length: 150 }, (_, i) => [`k${i}`, i]))) as Record<string, unknown>;
    expect(wide["…"]).toBe("50 more keys");
  });

  it("summarizes containers below the depth limit", () => {
    let deep: unknown = [1, 2];
    for (let i = 0; i < 100_000; i++) deep = { a: deep };
    const bounded = JSON.stringify(boundInput(deep));
    expect(bounded).toContain('"{object of 1 keys}"');
    expect(bounded.match(/"a"/g)).toHaveLength(INPUT_ECHO_LIMITS.depth);
  });

  it("keeps one entry's echo near the size budget", () => {
    const huge = Array.from({ length: 100 }, () => Array.from({ length: 100 }, () => "y".repeat(900)));
    expect(JSON.stringify(boundInput(huge)).length).toBeLessThan(INPUT_ECHO_LIMITS.total * 1.5);
  });
});

describe("RequestValidationError.body", () => {
  it("sends at most 100 entries, each input bounded", () => {
    const issues = Array.from({ length: 500 }, (_, i) => fieldIssue(["body", i], "bad", "z".repeat(5_000)));
    const detail = new RequestValidationError(issues).body().detail as { input: string }[];
    expect(detail).toHaveLength(100);
    expect(detail[0]!.input).toHaveLength(INPUT_ECHO_LIMITS.stringLength + 1);
  });
});
