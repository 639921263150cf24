import type { StoredAddress } from "../schema/address.ts";

/** The words of a document in one language. */
const english = {
  invoice: "Invoice",
  receipt: "Receipt",
  creditNote: "Credit note",
  invoiceNumber: "Invoice number",
  receiptNumber: "Receipt number",
  creditNoteNumber: "Credit note number",
  creditedInvoice: "Credited invoice",
  invoiceOf: (number: string, date: string) => `${number} of ${date}`,
  dateOfIssue: "Date of issue",
  dateOfSupply: "Date of supply",
  datePaid: "Date paid",
  dateRefunded: "Date refunded",
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
  totalCredited: "Total credited",
  amountPaid: "Amount paid",
  amountDue: "Amount due",
  refundedOn: (date: string) => `Refunded ${date}`,
  netPaid: "Net paid",
  // The mention Article 226(11a) of Council Directive 2006/112/EC requires, and what it means.
  reverseCharge: "Reverse charge",
  reverseChargeStatement: "VAT to be accounted for by the recipient (Article 196, Council Directive 2006/112/EC).",
  sellerVatNumber: "Seller's VAT number",
  buyerVatNumber: "Buyer's VAT number",
};
export type Words = typeof english;

// The reverse-charge mentions below are the wording each language's tax law uses
// (autoliquidation; Steuerschuldnerschaft des Leistungsempfängers, §14a UStG).
const french: Words = {
  invoice: "Facture",
  receipt: "Reçu",
  creditNote: "Avoir",
  invoiceNumber: "Numéro de facture",
  receiptNumber: "Numéro de reçu",
  creditNoteNumber: "Numéro d'avoir",
  creditedInvoice: "Facture d'origine",
  invoiceOf: (number, date) => `${number} du ${date}`,
  dateOfIssue: "Date d'émission",
  dateOfSupply: "Date de la prestation",
  datePaid: "Date de paiement",
  dateRefunded: "Date de remboursement",
  billTo: "Facturé à",
  taxId: "Identifiant fiscal",
  businessCustomer: "Client professionnel",
  description: "Désignation",
  quantity: "Qté",
  unitPrice: "Prix unitaire",
  taxRate: "Taux de taxe",
  tax: "Taxe",
  amount: "Montant",
  subtotal: "Sous-total",
  discount: "Remise",
  taxOn: (rate, base) => `Taxe ${rate} sur ${base}`,
  total: "Total",
  totalCredited: "Total crédité",
  amountPaid: "Montant payé",
  amountDue: "Montant dû",
  refundedOn: (date) => `Remboursé le ${date}`,
  netPaid: "Montant net payé",
  reverseCharge: "Autoliquidation",
  reverseChargeStatement: "TVA due par le preneur (article 196 de la directive 2006/112/CE du Conseil).",
  sellerVatNumber: "N° de TVA du vendeur",
  buyerVatNumber: "N° de TVA de l'acheteur",
};

// «Gutschrift» is a self-billed invoice in German VAT law; a correction of one's own invoice is a
// «Rechnungskorrektur».
const german: Words = {
  invoice: "Rechnung",
  receipt: "Quittung",
  creditNote: "Rechnungskorrektur",
  invoiceNumber: "Rechnungsnummer",
  receiptNumber: "Quittungsnummer",
  creditNoteNumber: "Korrekturnummer",
  creditedInvoice: "Ursprüngliche Rechnung",
  invoiceOf: (number, date) => `${number} vom ${date}`,
  dateOfIssue: "Rechnungsdatum",
  dateOfSupply: "Leistungsdatum",
  datePaid: "Zahlungsdatum",
  dateRefunded: "Erstattungsdatum",
  billTo: "Rechnungsempfänger",
  taxId: "Steuernummer",
  businessCustomer: "Geschäftskunde",
  description: "Beschreibung",
  quantity: "Menge",
  unitPrice: "Einzelpreis",
  taxRate: "Steuersatz",
  tax: "Steuer",
  amount: "Betrag",
  subtotal: "Zwischensumme",
  discount: "Rabatt",
  taxOn: (rate, base) => `Steuer ${rate} auf ${base}`,
  total: "Gesamtbetrag",
  totalCredited: "Erstatteter Gesamtbetrag",
  amountPaid: "Bezahlter Betrag",
  amountDue: "Fälliger Betrag",
  refundedOn: (date) => `Erstattet am ${date}`,
  netPaid: "Bezahlt nach Erstattungen",
  reverseCharge: "Steuerschuldnerschaft des Leistungsempfängers",
  reverseChargeStatement: "Die Mehrwertsteuer schuldet der Leistungsempfänger (Artikel 196 der Richtlinie 2006/112/EG des Rates).",
  sellerVatNumber: "USt-IdNr. des Verkäufers",
  buyerVatNumber: "USt-IdNr. des Käufers",
};

// A credit note is Japan's «返還インボイス» (適格返還請求書), the document a registered seller issues for a refund.
const japanese: Words = {
  invoice: "請求書",
  receipt: "領収書",
  creditNote: "返還インボイス",
  invoiceNumber: "請求書番号",
  receiptNumber: "領収書番号",
  creditNoteNumber: "返還インボイス番号",
  creditedInvoice: "対象の請求書",
  invoiceOf: (number, date) => `${number}（${date}）`,
  dateOfIssue: "発行日",
  dateOfSupply: "取引日",
  datePaid: "支払日",
  dateRefunded: "返金日",
  billTo: "請求先",
  taxId: "税務番号",
  businessCustomer: "法人のお客様",
  description: "品目",
  quantity: "数量",
  unitPrice: "単価",
  taxRate: "税率",
  tax: "税額",
  amount: "金額",
  subtotal: "小計",
  discount: "割引",
  taxOn: (rate, base) => `${rate}対象 ${base} の税額`,
  total: "合計",
  totalCredited: "返還合計",
  amountPaid: "お支払い済み金額",
  amountDue: "ご請求金額",
  refundedOn: (date) => `${date} 返金`,
  netPaid: "返金後のお支払い額",
  reverseCharge: "リバースチャージ",
  reverseChargeStatement: "VATは受領者が納付します（EU理事会指令2006/112/EC第196条）。",
  sellerVatNumber: "販売者のVAT番号",
  buyerVatNumber: "購入者のVAT番号",
};

/** The languages a document can be written in, by ISO 639 code; a new language is one entry more. */
const WORDS: Readonly<Record<string, Words>> = { en: english, fr: french, de: german, ja: japanese };

const DEFAULT_LOCALE = "en-US";

/** How a document reads: its words, and the locale its numbers, dates and countries follow. */
export interface DocumentLanguage {
  /** The ISO 639 code of the words: the locale's language where translated, else `en`. */
  language: string;
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
 * Built once per formatting locale: the `Intl` formatters cost more to construct than to use (a
 * renewal's receipt and email built four of them, and one per amount, every time). The tags are
 * the ones `Intl` supports, so the cache stays small.
 */
const languages = new Map<string, DocumentLanguage>();

/**
 * The document's language for the buyer's locale (a BCP 47 tag, as the checkout records it):
 * numbers, amounts, dates and country names in that locale, the words in its language where a
 * translation exists and in English otherwise.
 */
export function documentLanguage(locale: string | null): DocumentLanguage {
  const tag = formattingLocale(locale);
  const known = languages.get(tag);
  if (known) return known;
  const built = buildLanguage(tag);
  languages.set(tag, built);
  return built;
}

function buildLanguage(tag: string): DocumentLanguage {
  const requested = new Intl.Locale(tag).language;
  const language = requested in WORDS ? requested : "en";
  const words = WORDS[language] ?? english;
  const dates = new Intl.DateTimeFormat(tag, { dateStyle: "long", timeZone: "UTC" });
  // Three decimals: Québec's combined GST and QST is 14.975 %.
  const percent = new Intl.NumberFormat(tag, { style: "percent", maximumFractionDigits: 3 });
  const numbers = new Intl.NumberFormat(tag);
  const regions = new Intl.DisplayNames([tag], { type: "region" });
  /** Per currency code (upper case): the formatter and the currency's minor-unit digits. */
  const currencies = new Map<string, { format: Intl.NumberFormat; digits: number }>();
  return {
    language,
    words,
    money(amountMinor, currency) {
      const code = currency.toUpperCase();
      let entry = currencies.get(code);
      if (!entry) {
        const format = new Intl.NumberFormat(tag, { style: "currency", currency: code });
        entry = { format, digits: format.resolvedOptions().maximumFractionDigits ?? 2 };
        currencies.set(code, entry);
      }
      return entry.format.format(amountMinor / 10 ** entry.digits);
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
