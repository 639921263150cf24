import { documentLanguage } from "../../documents/language.ts";
import { escapeHtml } from "../../pages/html-page.ts";
import { button, emailLayout, intro, paragraphs, type EmailBrand, type EmailSection, type RenderedEmail } from "./email-layout.ts";
import { emailWords, wordsIn, type WordsByLanguage } from "./email-words.ts";

/** What the sign-in code email shows (`customer_session_code`). */
export interface PortalSignInCode {
  organization: EmailBrand;
  recipient: string;
  locale: string | null;
  code: string;
  /** How long the code lasts, in whole minutes. */
  validMinutes: number;
  /** The portal page where the code is entered. */
  portalUrl: string;
}

interface CodeWords {
  subject: (organization: string) => string;
  title: string;
  asked: (organization: string) => string;
  expires: (minutes: string) => string;
  ignore: string;
  open: string;
}

const WORDS: WordsByLanguage<CodeWords> = {
  en: {
    subject: (organization) => `Access your ${organization} purchases`,
    title: "Your sign-in code",
    asked: (organization) => `Enter this code on the ${organization} customer portal to sign in:`,
    expires: (minutes) => `The code expires in ${minutes} minutes and works once.`,
    ignore: "If you did not ask for it, ignore this email: nobody can sign in without the code.",
    open: "Open the customer portal",
  },
  fr: {
    subject: (organization) => `Accédez à vos achats ${organization}`,
    title: "Votre code de connexion",
    asked: (organization) => `Saisissez ce code sur l'espace client de ${organization} pour vous connecter :`,
    expires: (minutes) => `Le code expire dans ${minutes} minutes et ne sert qu'une fois.`,
    ignore: "Si vous ne l'avez pas demandé, ignorez cet e-mail : personne ne peut se connecter sans le code.",
    open: "Ouvrir l'espace client",
  },
  de: {
    subject: (organization) => `Zugriff auf Ihre Käufe bei ${organization}`,
    title: "Ihr Anmeldecode",
    asked: (organization) => `Geben Sie diesen Code im Kundenportal von ${organization} ein, um sich anzumelden:`,
    expires: (minutes) => `Der Code läuft in ${minutes} Minuten ab und gilt nur einmal.`,
    ignore: "Wenn Sie ihn nicht angefordert haben, ignorieren Sie diese E-Mail: Ohne den Code kann sich niemand anmelden.",
    open: "Kundenportal öffnen",
  },
  ja: {
    subject: (organization) => `${organization} のご購入内容へのアクセス`,
    title: "サインインコード",
    asked: (organization) => `${organization} のカスタマーポータルでこのコードを入力してサインインしてください。`,
    expires: (minutes) => `このコードの有効期限は ${minutes} 分で、1 回のみ使用できます。`,
    ignore: "お心当たりがない場合は、このメールを無視してください。コードがなければ誰もサインインできません。",
    open: "カスタマーポータルを開く",
  },
};

/** The code in a large monospace block, easy to read and copy. */
const codeBlock = (code: string): EmailSection => ({
  html: `<p style="margin:0 0 16px;padding:12px 16px;background:#f4f4f5;border-radius:6px;font-family:ui-monospace,Menlo,Consolas,monospace;font-size:28px;letter-spacing:6px;font-weight:600;text-align:center">${escapeHtml(code)}</p>`,
  text: code,
});

/** The customer's sign-in code for the portal, in the customer's language. */
export function renderPortalSignInCode(email: PortalSignInCode): RenderedEmail {
  const language = documentLanguage(email.locale);
  const words = wordsIn(language, WORDS);
  const subject = words.subject(email.organization.name);
  const sections = [
    intro(words.title, words.asked(email.organization.name)),
    codeBlock(email.code),
    paragraphs(words.expires(language.number(email.validMinutes)), words.ignore),
    button(words.open, email.portalUrl),
  ];
  return {
    subject,
    ...emailLayout(email.organization, language, {
      title: subject,
      sections,
      footer: emailWords(language).sentTo(email.recipient, email.organization.name, "account"),
    }),
  };
}
