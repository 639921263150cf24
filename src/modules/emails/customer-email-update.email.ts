import { documentLanguage } from "../../documents/language.ts";
import { button, emailLayout, intro, paragraphs, type EmailBrand, type RenderedEmail } from "./email-layout.ts";
import { emailWords, wordsIn, type WordsByLanguage } from "./email-words.ts";

/** What the email to a customer's new address shows (`customer_email_update`): the link that confirms it. */
export interface CustomerEmailUpdateVerification {
  organization: EmailBrand;
  /** The new address, where this email goes. */
  recipient: string;
  locale: string | null;
  /** The portal page that verifies the token it carries. */
  verifyUrl: string;
  /** How long the link lasts, in whole minutes. */
  validMinutes: number;
}

/** What the notice to a customer's previous address shows (`customer_email_changed`). */
export interface CustomerEmailChanged {
  organization: EmailBrand;
  /** The previous address, where this notice goes. */
  recipient: string;
  locale: string | null;
  newEmail: string;
}

interface UpdateWords {
  verifySubject: string;
  verifyTitle: string;
  verifyAsked: (organization: string) => string;
  verifyExpires: (minutes: string) => string;
  verifyIgnore: string;
  verifyButton: string;
  changedSubject: string;
  changedTitle: string;
  changedBody: (organization: string, email: string) => string;
  changedNotYou: string;
}

const WORDS: WordsByLanguage<UpdateWords> = {
  en: {
    verifySubject: "Verify your new email address",
    verifyTitle: "Confirm your new email address",
    verifyAsked: (organization) =>
      `You asked to use this address for your ${organization} customer account. Confirm it with the button below.`,
    verifyExpires: (minutes) => `The link expires in ${minutes} minutes and works once.`,
    verifyIgnore: "If you did not ask for it, ignore this email: your address stays as it is.",
    verifyButton: "Verify email address",
    changedSubject: "Your email address has been changed",
    changedTitle: "Your email address has been changed",
    changedBody: (organization, email) => `Your ${organization} customer account now uses ${email}. Emails about it go there from now on.`,
    changedNotYou: "If you did not make this change, contact the seller by replying to this email.",
  },
  fr: {
    verifySubject: "Vérifiez votre nouvelle adresse e-mail",
    verifyTitle: "Confirmez votre nouvelle adresse e-mail",
    verifyAsked: (organization) =>
      `Vous avez demandé à utiliser cette adresse pour votre compte client ${organization}. Confirmez-la avec le bouton ci-dessous.`,
    verifyExpires: (minutes) => `Le lien expire dans ${minutes} minutes et ne sert qu'une fois.`,
    verifyIgnore: "Si vous ne l'avez pas demandé, ignorez cet e-mail : votre adresse reste inchangée.",
    verifyButton: "Vérifier l'adresse e-mail",
    changedSubject: "Votre adresse e-mail a été modifiée",
    changedTitle: "Votre adresse e-mail a été modifiée",
    changedBody: (organization, email) =>
      `Votre compte client ${organization} utilise désormais ${email}. Les e-mails le concernant y seront envoyés.`,
    changedNotYou: "Si vous n'êtes pas à l'origine de ce changement, contactez le vendeur en répondant à cet e-mail.",
  },
  de: {
    verifySubject: "Bestätigen Sie Ihre neue E-Mail-Adresse",
    verifyTitle: "Neue E-Mail-Adresse bestätigen",
    verifyAsked: (organization) =>
      `Sie möchten diese Adresse für Ihr Kundenkonto bei ${organization} verwenden. Bestätigen Sie sie mit der Schaltfläche unten.`,
    verifyExpires: (minutes) => `Der Link läuft in ${minutes} Minuten ab und gilt nur einmal.`,
    verifyIgnore: "Wenn Sie das nicht angefordert haben, ignorieren Sie diese E-Mail: Ihre Adresse bleibt unverändert.",
    verifyButton: "E-Mail-Adresse bestätigen",
    changedSubject: "Ihre E-Mail-Adresse wurde geändert",
    changedTitle: "Ihre E-Mail-Adresse wurde geändert",
    changedBody: (organization, email) =>
      `Ihr Kundenkonto bei ${organization} verwendet jetzt ${email}. E-Mails dazu gehen ab sofort dorthin.`,
    changedNotYou: "Wenn Sie diese Änderung nicht vorgenommen haben, antworten Sie auf diese E-Mail, um den Verkäufer zu kontaktieren.",
  },
  ja: {
    verifySubject: "新しいメールアドレスの確認",
    verifyTitle: "新しいメールアドレスを確認してください",
    verifyAsked: (organization) =>
      `${organization} のカスタマーアカウントでこのアドレスを使用するリクエストを受け付けました。下のボタンで確認してください。`,
    verifyExpires: (minutes) => `このリンクの有効期限は ${minutes} 分で、1 回のみ使用できます。`,
    verifyIgnore: "お心当たりがない場合は、このメールを無視してください。アドレスは変更されません。",
    verifyButton: "メールアドレスを確認",
    changedSubject: "メールアドレスが変更されました",
    changedTitle: "メールアドレスが変更されました",
    changedBody: (organization, email) => `${organization} のカスタマーアカウントは今後 ${email} を使用します。`,
    changedNotYou: "この変更にお心当たりがない場合は、このメールに返信して販売者にお問い合わせください。",
  },
};

/** The link that confirms a customer's new address, sent to that address in the customer's language. */
export function renderCustomerEmailUpdate(email: CustomerEmailUpdateVerification): RenderedEmail {
  const language = documentLanguage(email.locale);
  const words = wordsIn(language, WORDS);
  const sections = [
    intro(words.verifyTitle, words.verifyAsked(email.organization.name)),
    button(words.verifyButton, email.verifyUrl),
    paragraphs(words.verifyExpires(language.number(email.validMinutes)), words.verifyIgnore),
  ];
  return {
    subject: words.verifySubject,
    ...emailLayout(email.organization, language, {
      title: words.verifySubject,
      sections,
      footer: emailWords(language).sentTo(email.recipient, email.organization.name, "email-change"),
    }),
  };
}

/** The notice to a customer's previous address that the account moved to another one. */
export function renderCustomerEmailChanged(email: CustomerEmailChanged): RenderedEmail {
  const language = documentLanguage(email.locale);
  const words = wordsIn(language, WORDS);
  const sections = [intro(words.changedTitle, words.changedBody(email.organization.name, email.newEmail)), paragraphs(words.changedNotYou)];
  return {
    subject: words.changedSubject,
    ...emailLayout(email.organization, language, {
      title: words.changedSubject,
      sections,
      footer: emailWords(language).sentTo(email.recipient, email.organization.name, "email-change"),
    }),
  };
}
