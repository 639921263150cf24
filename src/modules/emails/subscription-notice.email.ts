import { documentLanguage } from "../../documents/language.ts";
import { emailLayout, intro, type EmailBrand, type RenderedEmail } from "./email-layout.ts";
import { emailWords, wordsIn, type WordsByLanguage } from "./email-words.ts";
import { portalButton } from "./portal-button.ts";

/** A change of a subscription its customer hears about; each is its own template and switch. */
export type SubscriptionNoticeKind = "subscription_cancellation" | "subscription_uncanceled" | "subscription_revoked";

/** What a subscription notice shows, read by the flow in the change's transaction. */
export interface SubscriptionNotice {
  kind: SubscriptionNoticeKind;
  organization: EmailBrand;
  recipient: string;
  locale: string | null;
  product: string;
  /** What a period bills before tax, in minor units. */
  amount: number;
  currency: string;
  /** When the subscription ends (a cancellation), renews (an uncancel) or ended (a revoke). */
  date: Date;
  portalUrl: string;
}

interface NoticeWords {
  subject: (product: string) => string;
  title: string;
  /** The lines under the title, from the product, the organization, the date and the amount, formatted. */
  lines: (facts: { product: string; organization: string; date: string; amount: string }) => string[];
}

const WORDS: WordsByLanguage<Record<SubscriptionNoticeKind, NoticeWords>> = {
  en: {
    subscription_cancellation: {
      subject: (product) => `Your ${product} subscription cancellation`,
      title: "Your subscription is canceled",
      lines: (f) => [
        `Your ${f.product} subscription from ${f.organization} is canceled and ends on ${f.date}.`,
        `You keep its benefits until then, and its renewal at ${f.amount} per period will not be charged.`,
      ],
    },
    subscription_uncanceled: {
      subject: (product) => `Your ${product} subscription is uncanceled`,
      title: "Your subscription continues",
      lines: (f) => [
        `Your ${f.product} subscription from ${f.organization} is no longer canceled.`,
        `It renews on ${f.date} at ${f.amount} per period.`,
      ],
    },
    subscription_revoked: {
      subject: (product) => `Your ${product} subscription has ended`,
      title: "Your subscription has ended",
      lines: (f) => [
        `Your ${f.product} subscription from ${f.organization} ended on ${f.date}.`,
        `Its benefits are no longer available, and it will not be charged again (${f.amount} per period).`,
      ],
    },
  },
  fr: {
    subscription_cancellation: {
      subject: (product) => `Résiliation de votre abonnement ${product}`,
      title: "Votre abonnement est résilié",
      lines: (f) => [
        `Votre abonnement ${f.product} auprès de ${f.organization} est résilié et prend fin le ${f.date}.`,
        `Vous conservez ses avantages jusque-là, et son renouvellement à ${f.amount} par période ne sera pas prélevé.`,
      ],
    },
    subscription_uncanceled: {
      subject: (product) => `Votre abonnement ${product} n'est plus résilié`,
      title: "Votre abonnement continue",
      lines: (f) => [
        `Votre abonnement ${f.product} auprès de ${f.organization} n'est plus résilié.`,
        `Il se renouvelle le ${f.date} à ${f.amount} par période.`,
      ],
    },
    subscription_revoked: {
      subject: (product) => `Votre abonnement ${product} a pris fin`,
      title: "Votre abonnement a pris fin",
      lines: (f) => [
        `Votre abonnement ${f.product} auprès de ${f.organization} a pris fin le ${f.date}.`,
        `Ses avantages ne sont plus disponibles et il ne sera plus prélevé (${f.amount} par période).`,
      ],
    },
  },
  de: {
    subscription_cancellation: {
      subject: (product) => `Kündigung Ihres Abonnements ${product}`,
      title: "Ihr Abonnement ist gekündigt",
      lines: (f) => [
        `Ihr Abonnement ${f.product} bei ${f.organization} ist gekündigt und endet am ${f.date}.`,
        `Bis dahin behalten Sie die Vorteile, und die Verlängerung zu ${f.amount} pro Zeitraum wird nicht abgebucht.`,
      ],
    },
    subscription_uncanceled: {
      subject: (product) => `Die Kündigung Ihres Abonnements ${product} ist aufgehoben`,
      title: "Ihr Abonnement läuft weiter",
      lines: (f) => [
        `Die Kündigung Ihres Abonnements ${f.product} bei ${f.organization} ist aufgehoben.`,
        `Es verlängert sich am ${f.date} zu ${f.amount} pro Zeitraum.`,
      ],
    },
    subscription_revoked: {
      subject: (product) => `Ihr Abonnement ${product} ist beendet`,
      title: "Ihr Abonnement ist beendet",
      lines: (f) => [
        `Ihr Abonnement ${f.product} bei ${f.organization} endete am ${f.date}.`,
        `Die Vorteile sind nicht mehr verfügbar, und es wird nichts mehr abgebucht (${f.amount} pro Zeitraum).`,
      ],
    },
  },
  ja: {
    subscription_cancellation: {
      subject: (product) => `${product} のサブスクリプションの解約`,
      title: "サブスクリプションを解約しました",
      lines: (f) => [
        `${f.organization} の ${f.product} のサブスクリプションは解約され、${f.date} に終了します。`,
        `それまでは特典をご利用いただけます。期間ごとの ${f.amount} の更新料金は請求されません。`,
      ],
    },
    subscription_uncanceled: {
      subject: (product) => `${product} のサブスクリプションの解約を取り消しました`,
      title: "サブスクリプションは継続されます",
      lines: (f) => [
        `${f.organization} の ${f.product} のサブスクリプションの解約は取り消されました。`,
        `${f.date} に期間ごとの ${f.amount} で更新されます。`,
      ],
    },
    subscription_revoked: {
      subject: (product) => `${product} のサブスクリプションが終了しました`,
      title: "サブスクリプションが終了しました",
      lines: (f) => [
        `${f.organization} の ${f.product} のサブスクリプションは ${f.date} に終了しました。`,
        `特典はご利用いただけなくなり、今後 (期間ごとの ${f.amount}) 請求されることはありません。`,
      ],
    },
  },
};

/** A subscription's cancellation, uncancel or end, told to its customer in the customer's language. */
export function renderSubscriptionNotice(notice: SubscriptionNotice): RenderedEmail {
  const language = documentLanguage(notice.locale);
  const words = wordsIn(language, WORDS)[notice.kind];
  const subject = words.subject(notice.product);
  const lines = words.lines({
    product: notice.product,
    organization: notice.organization.name,
    date: language.date(notice.date),
    amount: language.money(notice.amount, notice.currency),
  });
  return {
    subject,
    ...emailLayout(notice.organization, language, {
      title: subject,
      sections: [intro(words.title, ...lines), portalButton(language, notice.portalUrl)],
      footer: emailWords(language).sentTo(notice.recipient, notice.organization.name, "subscription"),
    }),
  };
}
