import { describe, expect, it } from "vitest";
import { applyBasisPoints, roundHalfAwayFromZero } from "../../src/values/money.ts";
import { generateToken, hasValidChecksum, hashToken } from "../../src/values/tokens.ts";
import { durationToMilliseconds } from "../../src/values/duration.ts";

describe("rounding: half away from zero", () => {
  it.each([
    [5, 10, 1],
    [4, 10, 0],
    [15, 10, 2],
    [25, 10, 3],
    [-5, 10, -1],
    [-4, 10, 0],
    [0, 10, 0],
  ])("%i / %i → %i", (numerator, denominator, expected) => {
    expect(roundHalfAwayFromZero(numerator, denominator)).toBe(expected);
  });

  it("applies basis points on integers without float drift", () => {
    expect(applyBasisPoints(1999, 1000)).toBe(200); // 199.9
    expect(applyBasisPoints(1995, 1000)).toBe(200); // 199.5 rounds up
    expect(applyBasisPoints(1994, 1000)).toBe(199); // 199.4
    expect(applyBasisPoints(333, 5000)).toBe(167); // 166.5
    expect(applyBasisPoints(10_000, 10_000)).toBe(10_000);
    expect(applyBasisPoints(1, 1)).toBe(0);
    expect(applyBasisPoints(9_007_199_254, 1250)).toBe(1_125_899_907);
  });

  it("refuses a zero denominator", () => {
    expect(() => roundHalfAwayFromZero(1, 0)).toThrow(RangeError);
  });
});

describe("tokens", () => {
  it("has the anchor's shape: prefix, 37 alphanumerics, 6-character base62 checksum", () => {
    const token = generateToken("polar_oat_");
    expect(token).toMatch(/^polar_oat_[A-Za-z0-9]{43}$/);
    expect(hasValidChecksum(token, "polar_oat_")).toBe(true);
    expect(hasValidChecksum(`${token.slice(0, 20)}${token[20] === "x" ? "y" : "x"}${token.slice(21)}`, "polar_oat_")).toBe(false);
    expect(hasValidChecksum("polar_oat_short", "polar_oat_")).toBe(false);
  });

  it("never repeats", () => {
    const tokens = new Set(Array.from({ length: 1000 }, () => generateToken("polar_cst_")));
    expect(tokens.size).toBe(1000);
  });

  it("hashes with the server secret", () => {
    expect(hashToken("a", "t")).not.toBe(hashToken("b", "t"));
    expect(hashToken("a", "t")).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe("ISO 8601 durations", () => {
  it.each([
    ["P30D", 30 * 86_400_000],
    ["PT1H", 3_600_000],
    ["P1W", 7 * 86_400_000],
    ["P1DT2H3M4.5S", 86_400_000 + 7_200_000 + 180_000 + 4_500],
  ])("%s", (text, ms) => expect(durationToMilliseconds(text)).toBe(ms));

  it.each(["P1Y", "P1M", "P", "PT", "P0D", "30 days", ""])("refuses %j", (text) => expect(durationToMilliseconds(text)).toBeNull());
});
