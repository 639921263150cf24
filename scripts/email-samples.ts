import {
  renderOrderEmail,
  renderRefundIssued,
  renderSubscriptionNotice,
  type OrderEmail,
  type OrderEmailReason,
  type SubscriptionNoticeKind,
} from "../src/modules/emails/emails.steps.ts";
import type { RenderedEmail } from "../src/modules/emails/email-layout.ts";

// One made-up cause per email template, for the previews `npm run emails:render` draws. The values
// are chosen to stress the layout: a long product name, a discount, tax, a long license key, long links.

const organization = { name: "Ada & Co <Software>", logoUrl: null };
const paidAt = new Date("2026-11-28T10:30:00Z");
const recipient = "ada.lovelace@example.com";
const portalUrl = "https://shop.example.com/ada-co/portal";
const orderId = "0d9c3f55-3a8e-4c8e-9f0a-5b7f2d1e6c43";
const documentLink = (document: string) =>
  `https://shop.example.com/documents/orders/${orderId}/${document}?expires=1827491400&signature=Q2hhbmdlIG1lIGFuZCB0aGUgbGluayBpcyB2b2lk`;

export interface EmailSample {
  template: string;
  render(locale: string): RenderedEmail;
}

const order = (reason: OrderEmailReason, locale: string): OrderEmail => ({
  reason,
  organization,
  recipient,
  locale,
  description: "Analytical Engine Pro — lifetime licence",
  receiptNumber: "ADACO-0042",
  paidAt,
  items: [{ label: "Analytical Engine Pro — lifetime licence", amount: 12_900 }],
  amounts: { subtotal: 12_900, discount: 1_290, tax: 2_322, total: 13_932, currency: "eur" },
  benefits:
    reason === "purchase" || reason === "subscription_create"
      ? [
          {
            description: "Desktop licence for up to three machines",
            licenseKey: { key: "DSK-7F3A9C21-4B8E-4D0F-9A61-2C5E8B7D1F04", activationLimit: 3, expiresAt: null },
          },
          { description: "Priority support by email", licenseKey: null },
        ]
      : [],
  portalUrl,
  documents: { receiptUrl: documentLink("receipt"), invoiceUrl: documentLink("invoice") },
});

const ORDER_TEMPLATES: [string, OrderEmailReason][] = [
  ["order_confirmation", "purchase"],
  ["subscription_confirmation", "subscription_create"],
  ["subscription_cycled", "subscription_cycle"],
  ["subscription_cycled_after_trial", "subscription_cycle_after_trial"],
  ["subscription_cycled.usage", "subscription_meter_cycle"],
];

const NOTICES: SubscriptionNoticeKind[] = ["subscription_cancellation", "subscription_uncanceled", "subscription_revoked"];

export const EMAIL_SAMPLES: readonly EmailSample[] = [
  ...ORDER_TEMPLATES.map(([template, reason]) => ({ template, render: (locale: string) => renderOrderEmail(order(reason, locale)) })),
  ...NOTICES.map((kind) => ({
    template: kind,
    render: (locale: string) =>
      renderSubscriptionNotice({
        kind,
        organization,
        recipient,
        locale,
        product: "Analytical Engine Pro",
        amount: 2_900,
        currency: "eur",
        date: new Date("2026-12-28T10:30:00Z"),
        portalUrl,
      }),
  })),
  {
    template: "refund_issued",
    render: (locale) =>
      renderRefundIssued({
        organization,
        recipient,
        locale,
        description: "Analytical Engine Pro — lifetime licence",
        document: { kind: "invoice", number: "ADACO-2026-0042" },
        amount: 6_966,
        currency: "eur",
        refundedAt: paidAt,
        creditNote: { number: "ADACO-2026-0042-CN1", url: `${portalUrl}/orders/${orderId}/credit-notes` },
        portalUrl,
      }),
  },
];

/** The languages every template is drawn in: the four the documents translate, and one that falls back to English words. */
export const PREVIEW_LOCALES = ["en-US", "fr-FR", "de-DE", "ja-JP", "pt-BR"] as const;
