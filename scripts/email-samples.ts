import {
  renderCustomerEmailChanged,
  renderCustomerEmailUpdate,
  renderOrderEmail,
  renderPortalSignInCode,
  renderRefundIssued,
  renderRenewalReminder,
  renderSeatInvitation,
  renderSubscriptionNotice,
  renderSubscriptionPastDue,
  renderTrialConversionReminder,
  type OrderEmail,
  type OrderEmailReason,
  type SubscriptionNoticeKind,
} from "../src/modules/emails/emails.steps.ts";
import type { RenderedEmail } from "../src/modules/emails/email-layout.ts";
import {
  renderDisputeOpened,
  renderNewSale,
  renderNewSubscriber,
  renderSubscriptionCanceled,
  renderWebhookEndpointDisabled,
} from "../src/modules/emails/seller-notices.steps.ts";

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
  /** The languages it is written in, when not every preview language (the seller's notices are English). */
  locales?: readonly string[];
}

const seller = { organization, recipient: "owner@adaco.example" };
/** A seller's notice, drawn once: it is written in English whatever the locale. */
const sellerSample = (template: string, render: () => RenderedEmail): EmailSample => ({ template, render, locales: ["en-US"] });
const reminder = (locale: string) => ({
  organization,
  recipient,
  locale,
  product: "Analytical Engine Pro",
  amount: 34_800,
  currency: "eur",
  chargedAt: new Date("2026-12-05T10:30:00Z"),
  portalUrl,
});

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
            files: [
              {
                name: "AnalyticalEngine-2.4.1-setup.exe",
                size: 84_213_760,
                url: "https://api.adaco.example/downloads/7b3f2a10-5c4e-4d8a-9e21-0f6b8c1d2e34.sample-signature",
              },
            ],
          },
          { description: "Priority support by email", licenseKey: null, files: [] },
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
        creditNote: {
          number: "ADACO-2026-0042-CN1",
          url: "https://shop.example.com/documents/credit-notes/5b1e2a77-9c4d-4f1a-8e3b-2d6c7f0a9e18?expires=1827491400&signature=Q2hhbmdlIG1lIGFuZCB0aGUgbGluayBpcyB2b2lk",
        },
        portalUrl,
      }),
  },
  { template: "subscription_renewal_reminder", render: (locale) => renderRenewalReminder(reminder(locale)) },
  { template: "subscription_trial_conversion_reminder", render: (locale) => renderTrialConversionReminder(reminder(locale)) },
  {
    template: "subscription_past_due",
    render: (locale) =>
      renderSubscriptionPastDue({
        organization,
        recipient,
        locale,
        product: "Analytical Engine Pro",
        amount: 2_900,
        currency: "eur",
        paymentUrl: `${portalUrl}?sign_in=psi_Q2hhbmdlIG1lIGFuZCB0aGUgbGluayBpcyB2b2lk`,
        linkValidHours: 24,
      }),
  },
  {
    template: "customer_session_code",
    render: (locale) =>
      renderPortalSignInCode({ organization, recipient, locale, code: "7KQ2ZD", validMinutes: 15, portalUrl: `${portalUrl}/sign-in/code` }),
  },
  {
    template: "customer_email_update",
    render: (locale) =>
      renderCustomerEmailUpdate({
        organization,
        recipient: "ada.byron-king@example.com",
        locale,
        verifyUrl: `${portalUrl}/verify-email?token=polar_cev_Q2hhbmdlIG1lIGFuZCB0aGUgbGluayBpcyB2b2lk`,
        validMinutes: 30,
      }),
  },
  {
    template: "customer_email_changed",
    render: (locale) => renderCustomerEmailChanged({ organization, recipient, locale, newEmail: "ada.byron-king@example.com" }),
  },
  {
    template: "seat_invitation",
    render: (locale) =>
      renderSeatInvitation({
        organization,
        recipient,
        locale,
        productName: "Analytical Engine Team",
        inviter: "charles@engines.example",
        claimUrl: `${portalUrl}/claim?token=Xq3v9mB2kPz7LwT0sR4yN8cJ1hG6fD5aE-uQ_iVbKoM`,
        validHours: 24,
      }),
  },
  sellerSample("seller_new_sale", () =>
    renderNewSale({ ...seller, product: "Analytical Engine Pro", amount: 13_932, currency: "eur", customerEmail: recipient }),
  ),
  sellerSample("seller_new_subscription", () =>
    renderNewSubscriber({
      ...seller,
      product: "Analytical Engine Pro",
      amount: 2_900,
      currency: "eur",
      interval: "month",
      intervalCount: 1,
      trialEnd: new Date("2026-12-12T10:30:00Z"),
      customerEmail: recipient,
    }),
  ),
  sellerSample("seller_subscription_canceled", () =>
    renderSubscriptionCanceled({
      ...seller,
      product: "Analytical Engine Pro",
      customerEmail: recipient,
      endsAt: new Date("2026-12-28T10:30:00Z"),
      reason: "too_expensive",
      comment: "Lovely engine, but <b>the budget</b> is gone.",
    }),
  ),
  sellerSample("webhook_endpoint_disabled", () =>
    renderWebhookEndpointDisabled({
      ...seller,
      endpointUrl: "https://hooks.adaco.example/polar/webhooks/incoming?source=commerce-api&x=1",
    }),
  ),
  sellerSample("seller_dispute_opened", () =>
    renderDisputeOpened({
      ...seller,
      amount: 13_932,
      currency: "eur",
      order: { description: "Analytical Engine Pro — lifetime licence", invoiceNumber: "ADACO-2026-0042" },
      reason: "fraudulent",
      evidenceDueBy: new Date("2026-12-10T10:30:00Z"),
    }),
  ),
];

/** The languages every template is drawn in: the four the documents translate, and one that falls back to English words. */
export const PREVIEW_LOCALES = ["en-US", "fr-FR", "de-DE", "ja-JP", "pt-BR"] as const;
