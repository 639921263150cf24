import type { DocumentLanguage } from "../../documents/language.ts";

/**
 * What an email is about, as its footer tells the reader why they received it: a purchase (order,
 * refund), a subscription (reminders, notices), their account (sign-in), a seat invitation, or a
 * change of their email address.
 */
export type EmailTopic = "purchase" | "subscription" | "account" | "invitation" | "email-change";

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
  sentTo: (email: string, organization: string, topic: EmailTopic): string =>
    ({
      purchase: `This email was sent to ${email} about your purchase from ${organization}.`,
      subscription: `This email was sent to ${email} about your subscription with ${organization}.`,
      account: `This email was sent to ${email} about your account with ${organization}.`,
      invitation: `This email was sent to ${email} because you were invited to a seat from ${organization}.`,
      "email-change": `This email was sent to ${email} about a change of the email address of your account with ${organization}.`,
    })[topic],
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
  sentTo: (email, organization, topic) =>
    ({
      purchase: `Cet e-mail a été envoyé à ${email} au sujet de votre achat auprès de ${organization}.`,
      subscription: `Cet e-mail a été envoyé à ${email} au sujet de votre abonnement auprès de ${organization}.`,
      account: `Cet e-mail a été envoyé à ${email} au sujet de votre compte auprès de ${organization}.`,
      invitation: `Cet e-mail a été envoyé à ${email} car vous avez été invité à utiliser une place chez ${organization}.`,
      "email-change": `Cet e-mail a été envoyé à ${email} au sujet du changement d'adresse e-mail de votre compte auprès de ${organization}.`,
    })[topic],
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
  sentTo: (email, organization, topic) =>
    ({
      purchase: `Diese E-Mail wurde an ${email} gesendet, zu Ihrem Kauf bei ${organization}.`,
      subscription: `Diese E-Mail wurde an ${email} gesendet, zu Ihrem Abonnement bei ${organization}.`,
      account: `Diese E-Mail wurde an ${email} gesendet, zu Ihrem Konto bei ${organization}.`,
      invitation: `Diese E-Mail wurde an ${email} gesendet, weil Sie zu einem Platz bei ${organization} eingeladen wurden.`,
      "email-change": `Diese E-Mail wurde an ${email} gesendet, zur Änderung der E-Mail-Adresse Ihres Kontos bei ${organization}.`,
    })[topic],
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
  sentTo: (email, organization, topic) =>
    ({
      purchase: `このメールは ${organization} でのご購入について ${email} 宛てに送信されました。`,
      subscription: `このメールは ${organization} のサブスクリプションについて ${email} 宛てに送信されました。`,
      account: `このメールは ${organization} のアカウントについて ${email} 宛てに送信されました。`,
      invitation: `このメールは ${organization} のシートへの招待について ${email} 宛てに送信されました。`,
      "email-change": `このメールは ${organization} のアカウントのメールアドレス変更について ${email} 宛てに送信されました。`,
    })[topic],
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
