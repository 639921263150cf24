import { describe, expect, it } from "vitest";
import { addInterval } from "../../../src/values/calendar.ts";
import { shortIdCode } from "../../../src/modules/orders/order-numbers.ts";

describe("shortIdCode", () => {
  it("writes the short id in base 26 over A–Z, padded with A to 8 letters", () => {
    expect(shortIdCode(0)).toBe("AAAAAAAA");
    expect(shortIdCode(1)).toBe("AAAAAAAB");
    expect(shortIdCode(25)).toBe("AAAAAAAZ");
    expect(shortIdCode(26)).toBe("AAAAAABA");
    expect(shortIdCode(26 ** 8 - 1)).toBe("ZZZZZZZZ");
  });
});

describe("addInterval", () => {
  it("adds calendar units and clamps to the end of short months", () => {
    const jan31 = new Date("2026-01-31T10:00:00Z");
    expect(addInterval(jan31, "month", 1).toISOString()).toBe("2026-02-28T10:00:00.000Z");
    expect(addInterval(jan31, "year", 1).toISOString()).toBe("2027-01-31T10:00:00.000Z");
    expect(addInterval(jan31, "week", 2).toISOString()).toBe("2026-02-14T10:00:00.000Z");
    expect(addInterval(new Date("2028-02-29T00:00:00Z"), "year", 1).toISOString()).toBe("2029-02-28T00:00:00.000Z");
  });
});
