import { documentLanguage } from "../../documents/language.ts";
import { button, emailLayout, intro, paragraphs, type EmailBrand, type RenderedEmail } from "./email-layout.ts";
import { emailWords, wordsIn, type WordsByLanguage } from "./email-words.ts";

/** What the seat invitation shows (`seat_invitation`). */
export interface SeatInvitation {
  organization: EmailBrand;
  recipient: string;
  locale: string | null;
  productName: string;
  /** Who gave the seat: the billing customer's email, else its owner's, else its name. */
  inviter: string;
  /** The portal's claim page, the token in its query. */
  claimUrl: string;
  /** How long the invitation lasts from its assignment, in whole hours. */
  validHours: number;
}

interface InvitationWords {
  subject: (product: string) => string;
  invited: (inviter: string, product: string, organization: string) => string;
  expires: (hours: string) => string;
  ignore: string;
  claim: string;
}

const WORDS: WordsByLanguage<InvitationWords> = {
  en: {
    subject: (product) => `You've been invited to access ${product}`,
    invited: (inviter, product, organization) => `${inviter} has given you a seat of ${product} from ${organization}.`,
    expires: (hours) => `The invitation expires ${hours} hours after it was sent.`,
    ignore: "If you did not expect it, ignore this email: the seat stays unclaimed.",
    claim: "Claim seat",
  },
  fr: {
    subject: (product) => `Vous êtes invité à accéder à ${product}`,
    invited: (inviter, product, organization) => `${inviter} vous a attribué une place de ${product} chez ${organization}.`,
    expires: (hours) => `L'invitation expire ${hours} heures après son envoi.`,
    ignore: "Si vous ne l'attendiez pas, ignorez cet e-mail : la place reste libre.",
    claim: "Réclamer la place",
  },
  de: {
    subject: (product) => `Sie wurden zu ${product} eingeladen`,
    invited: (inviter, product, organization) => `${inviter} hat Ihnen einen Platz für ${product} von ${organization} zugewiesen.`,
    expires: (hours) => `Die Einladung läuft ${hours} Stunden nach dem Versand ab.`,
    ignore: "Wenn Sie sie nicht erwartet haben, ignorieren Sie diese E-Mail: Der Platz bleibt unbesetzt.",
    claim: "Platz übernehmen",
  },
  ja: {
    subject: (product) => `${product} へのアクセスに招待されました`,
    invited: (inviter, product, organization) => `${inviter} さんから ${organization} の ${product} のシートが割り当てられました。`,
    expires: (hours) => `この招待は送信から ${hours} 時間後に期限切れになります。`,
    ignore: "心当たりがない場合は、このメールを無視してください。シートは未使用のままです。",
    claim: "シートを受け取る",
  },
};

/** The invitation to claim a seat, in the billing customer's language. */
export function renderSeatInvitation(email: SeatInvitation): RenderedEmail {
  const language = documentLanguage(email.locale);
  const words = wordsIn(language, WORDS);
  const subject = words.subject(email.productName);
  const sections = [
    intro(subject, words.invited(email.inviter, email.productName, email.organization.name)),
    button(words.claim, email.claimUrl),
    paragraphs(words.expires(language.number(email.validHours)), words.ignore),
  ];
  return {
    subject,
    ...emailLayout(email.organization, language, {
      title: subject,
      sections,
      footer: emailWords(language).sentTo(email.recipient, email.organization.name, "invitation"),
    }),
  };
}
