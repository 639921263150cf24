import { documentLanguage } from "../../documents/language.ts";
import { button, emailLayout, intro, paragraphs, type EmailBrand, type RenderedEmail } from "./email-layout.ts";
import { emailWords, wordsIn, type WordsByLanguage } from "./email-words.ts";

/** What the failed-payment email shows (`subscription_past_due`). */
export interface SubscriptionPastDue {
  organization: EmailBrand;
  recipient: string;
  locale: string | null;
  product: string;
  /** The amount that could not be charged, in minor units. */
  amount: number;
  currency: string;
  /** A single-use link signing the customer into the portal's payment method section. */
  paymentUrl: string;
  /** How long the link lasts, in whole hours. */
  linkValidHours: number;
}

interface PastDueWords {
  subject: (product: string) => string;
  title: string;
  failed: (product: string, amount: string) => string;
  paused: string;
  update: string;
  link: (hours: string) => string;
}

const WORDS: WordsByLanguage<PastDueWords> = {
  en: {
    subject: (product) => `Your ${product} payment failed`,
    title: "Your payment failed",
    failed: (product, amount) => `We could not charge ${amount} for your ${product} subscription.`,
    paused: "Its benefits are paused until the payment goes through. Update your payment method and we will try again.",
    update: "Update your payment method",
    link: (hours) => `The button signs you in to the customer portal once and expires in ${hours} hours.`,
  },
  fr: {
    subject: (product) => `Le paiement de ${product} a échoué`,
    title: "Votre paiement a échoué",
    failed: (product, amount) => `Nous n'avons pas pu prélever ${amount} pour votre abonnement ${product}.`,
    paused: "Ses avantages sont suspendus jusqu'au paiement. Mettez à jour votre moyen de paiement et nous réessaierons.",
    update: "Mettre à jour le moyen de paiement",
    link: (hours) => `Le bouton vous connecte une seule fois à l'espace client et expire dans ${hours} heures.`,
  },
  de: {
    subject: (product) => `Ihre Zahlung für ${product} ist fehlgeschlagen`,
    title: "Ihre Zahlung ist fehlgeschlagen",
    failed: (product, amount) => `Wir konnten ${amount} für Ihr Abonnement ${product} nicht abbuchen.`,
    paused: "Die Vorteile sind bis zur Zahlung ausgesetzt. Aktualisieren Sie Ihre Zahlungsmethode, dann versuchen wir es erneut.",
    update: "Zahlungsmethode aktualisieren",
    link: (hours) => `Die Schaltfläche meldet Sie einmalig im Kundenportal an und läuft in ${hours} Stunden ab.`,
  },
  ja: {
    subject: (product) => `${product} のお支払いに失敗しました`,
    title: "お支払いに失敗しました",
    failed: (product, amount) => `${product} のサブスクリプションについて ${amount} を請求できませんでした。`,
    paused: "お支払いが完了するまで特典は停止されます。お支払い方法を更新していただければ、再度請求いたします。",
    update: "お支払い方法を更新する",
    link: (hours) => `このボタンでカスタマーポータルに 1 回だけサインインできます。有効期限は ${hours} 時間です。`,
  },
};

/** The customer's failed-payment notice, with a single-use sign-in link to the portal's payment method, in the customer's language. */
export function renderSubscriptionPastDue(email: SubscriptionPastDue): RenderedEmail {
  const language = documentLanguage(email.locale);
  const words = wordsIn(language, WORDS);
  const subject = words.subject(email.product);
  const sections = [
    intro(words.title, words.failed(email.product, language.money(email.amount, email.currency)), words.paused),
    button(words.update, email.paymentUrl),
    paragraphs(words.link(language.number(email.linkValidHours))),
  ];
  return {
    subject,
    ...emailLayout(email.organization, language, {
      title: subject,
      sections,
      footer: emailWords(language).sentTo(email.recipient, email.organization.name, "subscription"),
    }),
  };
}
