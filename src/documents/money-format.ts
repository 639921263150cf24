/** `1234` minor units of `usd` → "$12.34"; the currency's own number of decimals (JPY has none). */
export function formatMoney(amountMinor: number, currency: string, locale = "en-US"): string {
  const code = currency.toUpperCase();
  const format = new Intl.NumberFormat(locale, { style: "currency", currency: code });
  const digits = format.resolvedOptions().maximumFractionDigits ?? 2;
  return format.format(amountMinor / 10 ** digits);
}

/** Basis points → "20%", "7.5%". */
export const formatRate = (basisPoints: number): string => `${Number((basisPoints / 100).toFixed(2))}%`;
