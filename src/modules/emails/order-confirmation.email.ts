import { documentLanguage, type DocumentLanguage } from "../../documents/language.ts";
import { escapeHtml } from "../../pages/html-page.ts";
import { emailLayout, intro, type EmailBrand, type EmailSection, type RenderedEmail } from "./email-layout.ts";
import { emailWords, type EmailWords } from "./email-words.ts";

/** A benefit the order granted; a license key is printed in full, with its limits. */
export interface GrantedBenefit {
  description: string;
  licenseKey: { key: string; activationLimit: number | null; expiresAt: Date | null } | null;
}

/** What the order confirmation shows, read by the flow in the order's transaction. */
export interface OrderConfirmation {
  organization: EmailBrand;
  recipient: string;
  locale: string | null;
  /** The order's description (its product's name). */
  description: string;
  receiptNumber: string | null;
  paidAt: Date;
  items: readonly { label: string; amount: number }[];
  amounts: { subtotal: number; discount: number; tax: number; total: number; currency: string };
  benefits: readonly GrantedBenefit[];
}

const cell = "padding:6px 0;border-bottom:1px solid #e4e4e7";

/** The lines and totals, money formatted as the receipt formats it. */
function summary(order: OrderConfirmation, language: DocumentLanguage): EmailSection {
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

/** Every benefit granted; a license key in full, in a monospace block a buyer can copy. */
function benefits(order: OrderConfirmation, language: DocumentLanguage, words: EmailWords): EmailSection | null {
  if (order.benefits.length === 0) return null;
  const blocks = order.benefits.map(({ description, licenseKey: key }) => {
    const terms = key ? keyTerms(key, language, words) : [];
    const html = `<div style="margin:0 0 16px"><p style="margin:0 0 4px;font-weight:600">${escapeHtml(description)}</p>${
      key
        ? `<p style="margin:0 0 4px">${escapeHtml(words.licenseKey)}</p><pre style="margin:0 0 4px;padding:8px;background:#f4f4f5;border-radius:4px;font-size:14px;white-space:pre-wrap;word-break:break-all">${escapeHtml(key.key)}</pre>`
        : ""
    }${terms.map((line) => `<p style="margin:0;color:#52525b;font-size:14px">${escapeHtml(line)}</p>`).join("")}</div>`;
    const text = [`- ${description}`, ...(key ? [`${words.licenseKey}: ${key.key}`] : []), ...terms].join("\n  ");
    return { html, text };
  });
  return {
    html: `<h2 style="font-size:16px;margin:0 0 8px">${escapeHtml(words.benefits)}</h2>\n${blocks.map((block) => block.html).join("\n")}`,
    text: [`${words.benefits}:`, ...blocks.map((block) => block.text)].join("\n"),
  };
}

/** The customer's order confirmation (`order_confirmation`), in the customer's language. */
export function renderOrderConfirmation(order: OrderConfirmation): RenderedEmail {
  const language = documentLanguage(order.locale);
  const words = emailWords(language);
  const subject = words.orderSubject(order.description);
  const sections = [
    intro(words.thanks, words.orderPaid(order.organization.name)),
    summary(order, language),
    benefits(order, language, words),
  ].filter((section) => section !== null);
  return {
    subject,
    ...emailLayout(order.organization, language, {
      title: subject,
      sections,
      footer: words.sentTo(order.recipient, order.organization.name),
    }),
  };
}
