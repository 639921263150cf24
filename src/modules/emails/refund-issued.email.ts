import { documentLanguage } from "../../documents/language.ts";
import { button, emailLayout, intro, type EmailBrand, type EmailSection, type RenderedEmail } from "./email-layout.ts";
import { emailWords, wordsIn, type WordsByLanguage } from "./email-words.ts";
import { portalButton } from "./portal-button.ts";
import { escapeHtml } from "../../pages/html-page.ts";

/** What the refund notice shows, read by the refund flow in the refund's transaction. */
export interface RefundIssued {
  organization: EmailBrand;
  recipient: string;
  locale: string | null;
  /** The refunded order's description (its product's name). */
  description: string;
  /** The order's document number the customer holds: its invoice's when one exists, else its receipt's. */
  document: { kind: "invoice" | "receipt"; number: string } | null;
  /** What was given back, tax included, in minor units. */
  amount: number;
  currency: string;
  refundedAt: Date;
  /** The credit note the refund issued (an invoiced order's), with the signed link to its PDF. */
  creditNote: { number: string; url: string } | null;
  portalUrl: string;
}

interface RefundWords {
  subject: (product: string) => string;
  title: string;
  refunded: (amount: string, product: string, organization: string) => string;
  delay: string;
  viewCreditNote: string;
}

const WORDS: WordsByLanguage<RefundWords> = {
  en: {
    subject: (product) => `Your refund for ${product}`,
    title: "Your refund is on its way",
    refunded: (amount, product, organization) => `${organization} refunded ${amount} of your ${product} order.`,
    delay: "It reaches your account within a few business days, depending on your bank.",
    viewCreditNote: "View your credit note",
  },
  fr: {
    subject: (product) => `Votre remboursement pour ${product}`,
    title: "Votre remboursement est en route",
    refunded: (amount, product, organization) => `${organization} vous a remboursé ${amount} sur votre commande ${product}.`,
    delay: "Il arrive sur votre compte sous quelques jours ouvrés, selon votre banque.",
    viewCreditNote: "Voir votre avoir",
  },
  de: {
    subject: (product) => `Ihre Erstattung für ${product}`,
    title: "Ihre Erstattung ist unterwegs",
    refunded: (amount, product, organization) => `${organization} hat Ihnen ${amount} Ihrer Bestellung ${product} erstattet.`,
    delay: "Sie erreicht Ihr Konto je nach Bank innerhalb weniger Werktage.",
    viewCreditNote: "Gutschrift ansehen",
  },
  ja: {
    subject: (product) => `${product} の返金`,
    title: "返金を手続きしました",
    refunded: (amount, product, organization) => `${organization} は ${product} のご注文について ${amount} を返金しました。`,
    delay: "ご利用の銀行により、数営業日以内に口座に反映されます。",
    viewCreditNote: "クレジットノートを見る",
  },
};

/** The refund notice to the order's customer, in the customer's language: what came back, on which order, and its credit note. */
export function renderRefundIssued(refund: RefundIssued): RenderedEmail {
  const language = documentLanguage(refund.locale);
  const words = wordsIn(language, WORDS);
  const { words: documentWords } = language;
  const subject = words.subject(refund.description);
  const facts = [
    ...(refund.document
      ? [`${refund.document.kind === "invoice" ? documentWords.invoiceNumber : documentWords.receiptNumber}: ${refund.document.number}`]
      : []),
    ...(refund.creditNote ? [`${documentWords.creditNoteNumber}: ${refund.creditNote.number}`] : []),
    `${documentWords.dateRefunded}: ${language.date(refund.refundedAt)}`,
  ];
  const factsSection: EmailSection = {
    html: `<p style="margin:0 0 24px;color:#52525b">${facts.map(escapeHtml).join("<br>")}</p>`,
    text: facts.join("\n"),
  };
  const amount = language.money(refund.amount, refund.currency);
  return {
    subject,
    ...emailLayout(refund.organization, language, {
      title: subject,
      sections: [
        intro(words.title, words.refunded(amount, refund.description, refund.organization.name), words.delay),
        factsSection,
        refund.creditNote ? button(words.viewCreditNote, refund.creditNote.url) : portalButton(language, refund.portalUrl),
      ],
      footer: emailWords(language).sentTo(refund.recipient, refund.organization.name, "purchase"),
    }),
  };
}
