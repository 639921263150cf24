import { describe, expect, it } from "vitest";
import { formatMoney, moneyFormat } from "../../src/values/money-format.ts";

/** The pages write amounts by the format the server reads from Intl: the same text as Intl itself, at every edge. */
describe("formatMoney", () => {
  const currencies = ["usd", "eur", "gbp", "cad", "aud", "chf", "sek", "inr", "brl", "jpy", "krw", "bhd"];
  const amounts = [0, 1, 5, 99, 100, 1250, 99_999, 100_000, 123_456_789, 2_147_483_647, -2500, 50, 150, 250];

  it.each(currencies)("writes %s amounts exactly as Intl.NumberFormat('en') does", (currency) => {
    const intl = new Intl.NumberFormat("en", { style: "currency", currency: currency.toUpperCase() });
    for (const cents of amounts) expect(formatMoney(cents, moneyFormat(currency))).toBe(intl.format(cents / 100));
  });

  it("reads each currency's prefix, separators and digits", () => {
    expect(moneyFormat("usd")).toEqual({ prefix: "$", suffix: "", group: ",", decimal: ".", fractionDigits: 2 });
    expect(moneyFormat("CHF").prefix).toBe("CHF\u00a0");
    expect(moneyFormat("jpy").fractionDigits).toBe(0);
  });
});
