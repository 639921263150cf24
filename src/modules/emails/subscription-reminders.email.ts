import { documentLanguage } from "../../documents/language.ts";
import { button, emailLayout, intro, type EmailBrand, type RenderedEmail } from "./email-layout.ts";
import { emailWords, wordsIn, type WordsByLanguage } from "./email-words.ts";

/** What a reminder before a charge shows, read by the reminder scan: the product, the amount and when it is charged. */
export interface SubscriptionReminder {
  organization: EmailBrand;
  recipient: string;
  locale: string | null;
  product: string;
  /** What the charge will be, tax included: the next period's static prices less the discount still running then. */
  amount: number;
  currency: string;
  /** When the charge is made: the period's or the trial's end. */
  chargedAt: Date;
  /** The customer portal, where the subscription is canceled. */
  portalUrl: string;
}

interface ReminderWords {
  renewalSubject: (product: string) => string;
  renewalTitle: string;
  renewsOn: (product: string, date: string) => string;
  trialSubject: (product: string) => string;
  trialTitle: string;
  trialEndsOn: (product: string, date: string) => string;
  charged: (amount: string) => string;
  cancelBefore: string;
  manage: string;
}

const WORDS: WordsByLanguage<ReminderWords> = {
  en: {
    renewalSubject: (product) => `Your ${product} subscription renews soon`,
    renewalTitle: "Your subscription renews soon",
    renewsOn: (product, date) => `Your ${product} subscription renews on ${date}.`,
    trialSubject: (product) => `Your ${product} trial is ending soon`,
    trialTitle: "Your trial is ending soon",
    trialEndsOn: (product, date) => `Your ${product} trial ends on ${date}, and your subscription starts then.`,
    charged: (amount) => `${amount} will be charged to your saved payment method.`,
    cancelBefore: "To stop it, cancel before that date from your customer portal.",
    manage: "Manage your subscription",
  },
  fr: {
    renewalSubject: (product) => `Votre abonnement ${product} sera bientôt renouvelé`,
    renewalTitle: "Votre abonnement sera bientôt renouvelé",
    renewsOn: (product, date) => `Votre abonnement ${product} sera renouvelé le ${date}.`,
    trialSubject: (product) => `Votre essai de ${product} se termine bientôt`,
    trialTitle: "Votre essai se termine bientôt",
    trialEndsOn: (product, date) => `Votre essai de ${product} se termine le ${date} et votre abonnement commence alors.`,
    charged: (amount) => `${amount} seront prélevés sur votre moyen de paiement enregistré.`,
    cancelBefore: "Pour l'arrêter, annulez avant cette date depuis votre espace client.",
    manage: "Gérer votre abonnement",
  },
  de: {
    renewalSubject: (product) => `Ihr ${product}-Abonnement verlängert sich bald`,
    renewalTitle: "Ihr Abonnement verlängert sich bald",
    renewsOn: (product, date) => `Ihr ${product}-Abonnement verlängert sich am ${date}.`,
    trialSubject: (product) => `Ihre Testphase für ${product} endet bald`,
    trialTitle: "Ihre Testphase endet bald",
    trialEndsOn: (product, date) => `Ihre Testphase für ${product} endet am ${date}; dann beginnt Ihr Abonnement.`,
    charged: (amount) => `${amount} werden von Ihrer gespeicherten Zahlungsmethode abgebucht.`,
    cancelBefore: "Wenn Sie es beenden möchten, kündigen Sie vor diesem Datum in Ihrem Kundenportal.",
    manage: "Abonnement verwalten",
  },
  ja: {
    renewalSubject: (product) => `${product} のサブスクリプションがまもなく更新されます`,
    renewalTitle: "サブスクリプションがまもなく更新されます",
    renewsOn: (product, date) => `${product} のサブスクリプションは ${date} に更新されます。`,
    trialSubject: (product) => `${product} の無料トライアルがまもなく終了します`,
    trialTitle: "無料トライアルがまもなく終了します",
    trialEndsOn: (product, date) => `${product} の無料トライアルは ${date} に終了し、サブスクリプションが開始されます。`,
    charged: (amount) => `登録済みのお支払い方法に ${amount} が請求されます。`,
    cancelBefore: "継続しない場合は、その日までにカスタマーポータルから解約してください。",
    manage: "サブスクリプションを管理",
  },
};

/** A reminder in the customer's language: what renews or converts, when, and what it charges. */
function renderReminder(kind: "renewal" | "trial", reminder: SubscriptionReminder): RenderedEmail {
  const language = documentLanguage(reminder.locale);
  const words = wordsIn(language, WORDS);
  const money = language.money(reminder.amount, reminder.currency);
  const date = language.date(reminder.chargedAt);
  const renewal = kind === "renewal";
  const subject = renewal ? words.renewalSubject(reminder.product) : words.trialSubject(reminder.product);
  const sections = [
    intro(
      renewal ? words.renewalTitle : words.trialTitle,
      renewal ? words.renewsOn(reminder.product, date) : words.trialEndsOn(reminder.product, date),
      words.charged(money),
      words.cancelBefore,
    ),
    button(words.manage, reminder.portalUrl),
  ];
  return {
    subject,
    ...emailLayout(reminder.organization, language, {
      title: subject,
      sections,
      footer: emailWords(language).sentTo(reminder.recipient, reminder.organization.name, "subscription"),
    }),
  };
}

/** `subscription_renewal_reminder`: a long-cycle subscription renews within a week. */
export const renderRenewalReminder = (reminder: SubscriptionReminder): RenderedEmail => renderReminder("renewal", reminder);

/** `subscription_trial_conversion_reminder`: a trial ends soon and its first charge follows. */
export const renderTrialConversionReminder = (reminder: SubscriptionReminder): RenderedEmail => renderReminder("trial", reminder);
