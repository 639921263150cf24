import type { DocumentLanguage } from "../../documents/language.ts";

/** The words of the emails, beside the documents' (`documents/language.ts`), whose words and formats they share. */
const english = {
  orderSubject: (product: string) => `Your ${product} order confirmation`,
  thanks: "Thank you for your order!",
  orderPaid: (organization: string) => `Your order from ${organization} is paid.`,
  benefits: "What you get",
  licenseKey: "License key",
  activations: (limit: string) => `Up to ${limit} activations`,
  unlimitedActivations: "Unlimited activations",
  validUntil: (date: string) => `Valid until ${date}`,
  sentTo: (email: string, organization: string) => `This email was sent to ${email} about your purchase from ${organization}.`,
};
export type EmailWords = typeof english;

const french: EmailWords = {
  orderSubject: (product) => `Confirmation de votre commande ${product}`,
  thanks: "Merci pour votre commande !",
  orderPaid: (organization) => `Votre commande auprès de ${organization} est payée.`,
  benefits: "Ce que vous obtenez",
  licenseKey: "Clé de licence",
  activations: (limit) => `Jusqu'à ${limit} activations`,
  unlimitedActivations: "Activations illimitées",
  validUntil: (date) => `Valable jusqu'au ${date}`,
  sentTo: (email, organization) => `Cet e-mail a été envoyé à ${email} au sujet de votre achat auprès de ${organization}.`,
};

const german: EmailWords = {
  orderSubject: (product) => `Ihre Bestellbestätigung für ${product}`,
  thanks: "Vielen Dank für Ihre Bestellung!",
  orderPaid: (organization) => `Ihre Bestellung bei ${organization} ist bezahlt.`,
  benefits: "Das erhalten Sie",
  licenseKey: "Lizenzschlüssel",
  activations: (limit) => `Bis zu ${limit} Aktivierungen`,
  unlimitedActivations: "Unbegrenzte Aktivierungen",
  validUntil: (date) => `Gültig bis ${date}`,
  sentTo: (email, organization) => `Diese E-Mail wurde an ${email} gesendet, zu Ihrem Kauf bei ${organization}.`,
};

const japanese: EmailWords = {
  orderSubject: (product) => `${product} のご注文確認`,
  thanks: "ご注文ありがとうございます。",
  orderPaid: (organization) => `${organization} でのご注文のお支払いが完了しました。`,
  benefits: "ご購入の特典",
  licenseKey: "ライセンスキー",
  activations: (limit) => `最大 ${limit} 回まで有効化できます`,
  unlimitedActivations: "有効化の回数制限なし",
  validUntil: (date) => `${date} まで有効`,
  sentTo: (email, organization) => `このメールは ${organization} でのご購入について ${email} 宛てに送信されました。`,
};

// Keyed as the documents' words are: a language the documents translate has its email words too.
const WORDS: Readonly<Record<string, EmailWords>> = { en: english, fr: french, de: german, ja: japanese };

export const emailWords = (language: DocumentLanguage): EmailWords => WORDS[language.language] ?? english;

/** A template's own words, one set per language the documents translate. */
export interface WordsByLanguage<Words> {
  en: Words;
  fr: Words;
  de: Words;
  ja: Words;
}

/** The template's words in the email's language; English words (with the language's formats) for any other. */
export function wordsIn<Words>(language: DocumentLanguage, words: WordsByLanguage<Words>): Words {
  const code = language.language;
  return code === "fr" || code === "de" || code === "ja" ? words[code] : words.en;
}
