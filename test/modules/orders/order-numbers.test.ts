import { describe, expect, it } from "vitest";
import { addInterval } from "../../../src/kit/calendar.ts";
import { shortIdCode } from "../../../src/modules/orders/order-numbers.ts";
import { sandboxProcessor } from "../../../src/modules/payments/sandbox.processor.ts";

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

describe("sandbox payment processor", () => {
  const charge = (token: string) =>
    sandboxProcessor.charge({ checkoutId: "c1", amount: 100, currency: "usd", confirmationToken: token, setupOnly: false });
  it("follows Stripe's test token names", async () => {
    expect(await charge("tok_visa")).toEqual({ status: "succeeded", reference: expect.stringMatching(/^ch_sandbox_[0-9a-f]{24}$/) });
    expect((await charge("tok_amex")).status).toBe("succeeded");
    expect(await charge("tok_chargeDeclined")).toEqual({ status: "declined", message: "Your card was declined." });
    expect((await charge("tok_chargeDeclinedExpiredCard")).status).toBe("declined");
    expect((await charge("tok_chargeDeclinedProcessingError")).status).toBe("failed");
    expect((await charge("pm_card_visa")).status).toBe("declined");
  });
});
