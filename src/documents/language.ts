import type { StoredAddress } from "../kit/address.ts";

/** The words of a document in one language. */
const english = {
  invoice: "Invoice",
  receipt: "Receipt",
  invoiceNumber: "Invoice number",
  receiptNumber: "Receipt number",
  dateOfIssue: "Date of issue",
  dateOfSupply: "Date of supply",
  datePaid: "Date paid",
  billTo: "Bill to",
  taxId: "Tax ID",
  businessCustomer: "Business customer",
  description: "Description",
  quantity: "Qty",
  unitPrice: "Unit price",
  taxRate: "Tax rate",
  tax: "Tax",
  amount: "Amount",
  subtotal: "Subtotal",
  discount: "Discount",
  taxOn: (rate: string, base: string) => `Tax ${rate} on ${base}`,
  total: "Total",
  amountPaid: "Amount paid",
  amountDue: "Amount due",
  refunded: "Refunded",
  // The mention Article 226(11a) of Council Directive 2006/112/EC requires, and what it means.
  reverseCharge: "Reverse charge",
  reverseChargeStatement: "VAT to be accounted for by the recipient (Article 196, Council Directive 2006/112/EC).",
  sellerVatNumber: "Seller's VAT number",
  buyerVatNumber: "Buyer's VAT number",
};
export type Words = typeof english;

/** The languages a document can be written in, by ISO 639 code; a new language is one entry more. */
const WORDS: Readonly<Record<string, Words>> = { en: english };

const DEFAULT_LOCALE = "en-US";

/** How a document reads: its words, and the locale its numbers, dates and countries follow. */
export interface DocumentLanguage {
  words: Words;
  money: (amountMinor: number, currency: string) => string;
  rate: (basisPoints: number) => string;
  date: (date: Date) => string;
  number: (value: number) => string;
  addressLines: (address: StoredAddress | null) => string[];
}

/** The locale as `Intl` understands it, or the default one for a missing or malformed tag. */
function formattingLocale(locale: string | null): string {
  if (!locale) return DEFAULT_LOCALE;
  try {
    return Intl.DateTimeFormat.supportedLocalesOf(Intl.getCanonicalLocales(locale))[0] ?? DEFAULT_LOCALE;
  } catch {
    return DEFAULT_LOCALE;
  }
}

/**
 * The document's language for the buyer's locale (a BCP 47 tag, as the checkout records it):
 * numbers, amounts, dates and country names in that locale, the words in its language where a
 * translation exists and in English otherwise.
 */
export function documentLanguage(locale: string | null): DocumentLanguage {
  const tag = formattingLocale(locale);
  const words = WORDS[new Intl.Locale(tag).language] ?? english;
  const dates = new Intl.DateTimeFormat(tag, { dateStyle: "long", timeZone: "UTC" });
  // Three decimals: Québec's combined GST and QST is 14.975 %.
  const percent = new Intl.NumberFormat(tag, { style: "percent", maximumFractionDigits: 3 });
  const numbers = new Intl.NumberFormat(tag);
  const regions = new Intl.DisplayNames([tag], { type: "region" });
  return {
    words,
    money(amountMinor, currency) {
      const format = new Intl.NumberFormat(tag, { style: "currency", currency: currency.toUpperCase() });
      const digits = format.resolvedOptions().maximumFractionDigits ?? 2;
      return format.format(amountMinor / 10 ** digits);
    },
    rate: (basisPoints) => percent.format(basisPoints / 10_000),
    date: (date) => dates.format(date),
    number: (value) => numbers.format(value),
    addressLines(address) {
      if (!address) return [];
      const cityLine = [address.postal_code, address.city].filter(Boolean).join(" ");
      const country = regions.of(address.country) ?? address.country;
      return [address.line1, address.line2, cityLine, address.state, country].filter((line): line is string => Boolean(line));
    },
  };
}
