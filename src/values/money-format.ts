/**
 * How an amount in a currency is written in English (`$1,234.50`, `CHF 1,234.50`, `¥1,235`), read
 * once per currency from the server's `Intl`: a page formats amounts with it by arithmetic alone.
 * (Chromium builds its first currency `Intl.NumberFormat` of a page in tens of milliseconds, a good
 * part of the checkout's time to interactive.)
 */
export interface MoneyFormat {
  prefix: string;
  suffix: string;
  group: string;
  decimal: string;
  fractionDigits: number;
}

const cache = new Map<string, MoneyFormat>();

export function moneyFormat(currency: string): MoneyFormat {
  const code = currency.toUpperCase();
  const known = cache.get(code);
  if (known) return known;
  const format = new Intl.NumberFormat("en", { style: "currency", currency: code });
  const parts = format.formatToParts(1234567.5);
  const first = parts.findIndex((part) => part.type === "integer");
  const last = parts.findLastIndex((part) => part.type === "integer" || part.type === "fraction");
  const text = (from: number, to: number) =>
    parts
      .slice(from, to)
      .map((part) => part.value)
      .join("");
  const found: MoneyFormat = {
    prefix: text(0, first),
    suffix: text(last + 1, parts.length),
    group: parts.find((part) => part.type === "group")?.value ?? "",
    decimal: parts.find((part) => part.type === "decimal")?.value ?? ".",
    fractionDigits: format.resolvedOptions().maximumFractionDigits ?? 2,
  };
  cache.set(code, found);
  return found;
}

/** An amount in cents written as `format` says: what `Intl.NumberFormat("en", currency).format(cents / 100)` writes. */
export function formatMoney(cents: number, format: MoneyFormat): string {
  const [whole = "0", fraction] = (Math.abs(cents) / 100).toFixed(format.fractionDigits).split(".");
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, format.group);
  return `${cents < 0 ? "-" : ""}${format.prefix}${grouped}${fraction ? format.decimal + fraction : ""}${format.suffix}`;
}
