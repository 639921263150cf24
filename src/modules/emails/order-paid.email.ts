import { documentLanguage, type DocumentLanguage } from "../../documents/language.ts";
import { escapeHtml } from "../../pages/html-page.ts";
import { emailLayout, intro, type EmailBrand, type EmailSection, type RenderedEmail } from "./email-layout.ts";
import { sizeReadable } from "../../values/byte-sizes.ts";
import { portalButton } from "./portal-button.ts";
import { emailWords, wordsIn, type EmailWords, type WordsByLanguage } from "./email-words.ts";

/**
 * Why an order was paid, which picks its email: the order's billing reason, with a subscription's
 * first renewal after its trial told apart from the others (the hosted service's internal reason).
 */
export type OrderEmailReason =
  "purchase" | "subscription_create" | "subscription_cycle" | "subscription_cycle_after_trial" | "subscription_meter_cycle";

/** A benefit the order granted; a license key is printed in full, with its limits; its files each with a link. */
export interface GrantedBenefit {
  description: string;
  licenseKey: { key: string; activationLimit: number | null; expiresAt: Date | null } | null;
  files: readonly { name: string; size: number; url: string }[];
}

/** What an order's email shows, read by the flow in the order's transaction. */
export interface OrderEmail {
  reason: OrderEmailReason;
  organization: EmailBrand;
  recipient: string;
  locale: string | null;
  /** The order's description (its product's name). */
  description: string;
  receiptNumber: string | null;
  paidAt: Date;
  items: readonly { label: string; amount: number }[];
  amounts: { subtotal: number; discount: number; tax: number; total: number; currency: string };
  /** What the order granted; only a first order (a purchase, a subscription's start) lists them. */
  benefits: readonly GrantedBenefit[];
  /** The customer portal of the organization, where the customer signs in. */
  portalUrl: string;
  /** Signed links to the order's receipt (once it has a number) and invoice (when it can have one). */
  documents: { receiptUrl: string | null; invoiceUrl: string | null };
}

const DOCUMENT_WORDS: WordsByLanguage<{ receipt: string; invoice: string }> = {
  en: { receipt: "Download your receipt (PDF)", invoice: "Download your invoice (PDF)" },
  fr: { receipt: "Télécharger votre reçu (PDF)", invoice: "Télécharger votre facture (PDF)" },
  de: { receipt: "Quittung herunterladen (PDF)", invoice: "Rechnung herunterladen (PDF)" },
  ja: { receipt: "領収書をダウンロード（PDF）", invoice: "請求書をダウンロード（PDF）" },
};

/** The receipt and invoice links, each on its own line; none when the order has neither. */
function documentLinks(order: OrderEmail, language: DocumentLanguage): EmailSection | null {
  const words = wordsIn(language, DOCUMENT_WORDS);
  const links = [
    ...(order.documents.receiptUrl ? [[words.receipt, order.documents.receiptUrl] as const] : []),
    ...(order.documents.invoiceUrl ? [[words.invoice, order.documents.invoiceUrl] as const] : []),
  ];
  if (links.length === 0) return null;
  return {
    html: `<p style="margin:0 0 24px">${links.map(([label, url]) => `<a href="${escapeHtml(url)}" style="color:#18181b">${escapeHtml(label)}</a>`).join("<br>")}</p>`,
    text: links.map(([label, url]) => `${label}:\n${url}`).join("\n"),
  };
}

const cell = "padding:6px 0;border-bottom:1px solid #e4e4e7";

/** The lines and totals, money formatted as the receipt formats it. */
function summary(order: OrderEmail, language: DocumentLanguage): EmailSection {
  const money = (amount: number) => language.money(amount, order.amounts.currency);
  const { words } = language;
  const rows: [string, string][] = [
    ...order.items.map((item): [string, string] => [item.label, money(item.amount)]),
    [words.subtotal, money(order.amounts.subtotal)],
    ...(order.amounts.discount ? [[words.discount, `−${money(order.amounts.discount)}`] as [string, string]] : []),
    ...(order.amounts.tax ? [[words.tax, money(order.amounts.tax)] as [string, string]] : []),
    [words.total, money(order.amounts.total)],
  ];
  const facts = [
    ...(order.receiptNumber ? [`${words.receiptNumber}: ${order.receiptNumber}`] : []),
    `${words.datePaid}: ${language.date(order.paidAt)}`,
  ];
  const html = `<p style="margin:0 0 12px;color:#52525b">${facts.map(escapeHtml).join("<br>")}</p>
<table role="presentation" style="width:100%;border-collapse:collapse;margin:0 0 24px">${rows
    .map(([label, amount], index) => {
      const weight = index === rows.length - 1 ? "font-weight:600;" : "";
      // An amount never breaks (a discount's minus sign stays with it on a phone).
      return `<tr><td style="${cell};${weight}">${escapeHtml(label)}</td><td style="${cell};${weight}text-align:right;white-space:nowrap;padding-left:12px">${escapeHtml(amount)}</td></tr>`;
    })
    .join("")}</table>`;
  const text = [...facts, "", ...rows.map(([label, amount]) => `${label}: ${amount}`)].join("\n");
  return { html, text };
}

/** A license key's limits, as lines under it. */
function keyTerms(key: NonNullable<GrantedBenefit["licenseKey"]>, language: DocumentLanguage, words: EmailWords): string[] {
  return [
    key.activationLimit === null ? words.unlimitedActivations : words.activations(language.number(key.activationLimit)),
    ...(key.expiresAt ? [words.validUntil(language.date(key.expiresAt))] : []),
  ];
}

/**
 * Every benefit granted; a license key in full, in a monospace block a buyer can copy; each file
 * by name and size, the name linking to its download.
 */
function benefits(order: OrderEmail, language: DocumentLanguage, words: EmailWords): EmailSection | null {
  if (order.benefits.length === 0) return null;
  const blocks = order.benefits.map(({ description, licenseKey: key, files }) => {
    const terms = key ? keyTerms(key, language, words) : [];
    const fileLines = files.map((file) => ({ ...file, size: sizeReadable(file.size) }));
    const html = `<div style="margin:0 0 16px"><p style="margin:0 0 4px;font-weight:600">${escapeHtml(description)}</p>${
      key
        ? `<p style="margin:0 0 4px">${escapeHtml(words.licenseKey)}</p><pre style="margin:0 0 4px;padding:8px;background:#f4f4f5;border-radius:4px;font-size:14px;white-space:pre-wrap;word-break:break-all">${escapeHtml(key.key)}</pre>`
        : ""
    }${terms.map((line) => `<p style="margin:0;color:#52525b;font-size:14px">${escapeHtml(line)}</p>`).join("")}${fileLines
      .map(
        (file) =>
          `<p style="margin:0 0 4px"><a href="${escapeHtml(file.url)}" style="color:#18181b;overflow-wrap:anywhere">${escapeHtml(file.name)}</a> <span style="color:#52525b;font-size:14px;white-space:nowrap">(${escapeHtml(file.size)})</span></p>`,
      )
      .join("")}</div>`;
    const text = [
      `- ${description}`,
      ...(key ? [`${words.licenseKey}: ${key.key}`] : []),
      ...terms,
      ...fileLines.map((file) => `${file.name} (${file.size}):\n    ${file.url}`),
    ].join("\n  ");
    return { html, text };
  });
  return {
    html: `<h2 style="font-size:16px;margin:0 0 8px">${escapeHtml(words.benefits)}</h2>\n${blocks.map((block) => block.html).join("\n")}`,
    text: [`${words.benefits}:`, ...blocks.map((block) => block.text)].join("\n"),
  };
}

/** How an order's email opens: its subject, heading and first line. */
interface OrderEmailWords {
  subject: (product: string) => string;
  title: string;
  paid: (product: string, organization: string) => string;
}

type SubscriptionReason = Exclude<OrderEmailReason, "purchase">;

// A purchase keeps the order confirmation's words (email-words.ts); a subscription's orders have their own.
const SUBSCRIPTION_WORDS: WordsByLanguage<Record<SubscriptionReason, OrderEmailWords>> = {
  en: {
    subscription_create: {
      subject: (product) => `Your ${product} subscription`,
      title: "Thank you for subscribing!",
      paid: (product, organization) => `Your ${product} subscription from ${organization} has started.`,
    },
    subscription_cycle: {
      subject: (product) => `Your ${product} subscription has been renewed`,
      title: "Your subscription has been renewed",
      paid: (product, organization) => `Your ${product} subscription from ${organization} is paid for another period.`,
    },
    subscription_cycle_after_trial: {
      subject: (product) => `Your ${product} subscription is now active`,
      title: "Your trial has ended",
      paid: (product, organization) => `Your ${product} subscription from ${organization} is now active: its first period is paid.`,
    },
    subscription_meter_cycle: {
      subject: (product) => `Your ${product} usage invoice`,
      title: "Your usage is paid",
      paid: (product, organization) => `Your usage of ${product} from ${organization} over the last period is paid.`,
    },
  },
  fr: {
    subscription_create: {
      subject: (product) => `Votre abonnement ${product}`,
      title: "Merci pour votre abonnement !",
      paid: (product, organization) => `Votre abonnement ${product} auprès de ${organization} a commencé.`,
    },
    subscription_cycle: {
      subject: (product) => `Votre abonnement ${product} a été renouvelé`,
      title: "Votre abonnement a été renouvelé",
      paid: (product, organization) => `Votre abonnement ${product} auprès de ${organization} est payé pour une nouvelle période.`,
    },
    subscription_cycle_after_trial: {
      subject: (product) => `Votre abonnement ${product} est maintenant actif`,
      title: "Votre essai est terminé",
      paid: (product, organization) =>
        `Votre abonnement ${product} auprès de ${organization} est maintenant actif : sa première période est payée.`,
    },
    subscription_meter_cycle: {
      subject: (product) => `Votre facture d'utilisation ${product}`,
      title: "Votre utilisation est payée",
      paid: (product, organization) => `Votre utilisation de ${product} auprès de ${organization} sur la dernière période est payée.`,
    },
  },
  de: {
    subscription_create: {
      subject: (product) => `Ihr Abonnement ${product}`,
      title: "Vielen Dank für Ihr Abonnement!",
      paid: (product, organization) => `Ihr Abonnement ${product} bei ${organization} hat begonnen.`,
    },
    subscription_cycle: {
      subject: (product) => `Ihr Abonnement ${product} wurde verlängert`,
      title: "Ihr Abonnement wurde verlängert",
      paid: (product, organization) => `Ihr Abonnement ${product} bei ${organization} ist für einen weiteren Zeitraum bezahlt.`,
    },
    subscription_cycle_after_trial: {
      subject: (product) => `Ihr Abonnement ${product} ist jetzt aktiv`,
      title: "Ihr Testzeitraum ist beendet",
      paid: (product, organization) => `Ihr Abonnement ${product} bei ${organization} ist jetzt aktiv: der erste Zeitraum ist bezahlt.`,
    },
    subscription_meter_cycle: {
      subject: (product) => `Ihre Nutzungsrechnung für ${product}`,
      title: "Ihre Nutzung ist bezahlt",
      paid: (product, organization) => `Ihre Nutzung von ${product} bei ${organization} im letzten Zeitraum ist bezahlt.`,
    },
  },
  ja: {
    subscription_create: {
      subject: (product) => `${product} のサブスクリプション`,
      title: "ご登録ありがとうございます。",
      paid: (product, organization) => `${organization} の ${product} のサブスクリプションが開始されました。`,
    },
    subscription_cycle: {
      subject: (product) => `${product} のサブスクリプションが更新されました`,
      title: "サブスクリプションが更新されました",
      paid: (product, organization) => `${organization} の ${product} のサブスクリプションの次の期間のお支払いが完了しました。`,
    },
    subscription_cycle_after_trial: {
      subject: (product) => `${product} のサブスクリプションが有効になりました`,
      title: "無料トライアルが終了しました",
      paid: (product, organization) =>
        `${organization} の ${product} のサブスクリプションが有効になり、最初の期間のお支払いが完了しました。`,
    },
    subscription_meter_cycle: {
      subject: (product) => `${product} のご利用料金の請求書`,
      title: "ご利用料金のお支払いが完了しました",
      paid: (product, organization) => `${organization} の ${product} の前回の期間のご利用料金のお支払いが完了しました。`,
    },
  },
};

function openingWords(reason: OrderEmailReason, language: DocumentLanguage, words: EmailWords): OrderEmailWords {
  if (reason !== "purchase") return wordsIn(language, SUBSCRIPTION_WORDS)[reason];
  return { subject: words.orderSubject, title: words.thanks, paid: (_product, organization) => words.orderPaid(organization) };
}

/**
 * A paid order's email to its customer, in the customer's language: the opening its reason picks
 * (a purchase's confirmation, a subscription's start, renewal, end of trial or usage), then the
 * same summary, benefits and portal button for all.
 */
export function renderOrderEmail(order: OrderEmail): RenderedEmail {
  const language = documentLanguage(order.locale);
  const words = emailWords(language);
  const opening = openingWords(order.reason, language, words);
  const subject = opening.subject(order.description);
  const sections = [
    intro(opening.title, opening.paid(order.description, order.organization.name)),
    summary(order, language),
    documentLinks(order, language),
    benefits(order, language, words),
    portalButton(language, order.portalUrl),
  ].filter((section) => section !== null);
  return {
    subject,
    ...emailLayout(order.organization, language, {
      title: subject,
      sections,
      footer: words.sentTo(order.recipient, order.organization.name, "purchase"),
    }),
  };
}
