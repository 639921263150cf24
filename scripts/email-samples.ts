import { renderOrderConfirmation } from "../src/modules/emails/emails.steps.ts";
import type { RenderedEmail } from "../src/modules/emails/email-layout.ts";

// One made-up cause per email template, for the previews `npm run emails:render` draws. The values
// are chosen to stress the layout: a long product name, a discount, tax, a long license key.

const organization = { name: "Ada & Co <Software>", logoUrl: null };
const paidAt = new Date("2026-11-28T10:30:00Z");
const recipient = "ada.lovelace@example.com";

export interface EmailSample {
  template: string;
  render(locale: string): RenderedEmail;
}

export const EMAIL_SAMPLES: readonly EmailSample[] = [
  {
    template: "order_confirmation",
    render: (locale) =>
      renderOrderConfirmation({
        organization,
        recipient,
        locale,
        description: "Analytical Engine Pro — lifetime licence",
        receiptNumber: "ADACO-0042",
        paidAt,
        items: [{ label: "Analytical Engine Pro — lifetime licence", amount: 12_900 }],
        amounts: { subtotal: 12_900, discount: 1_290, tax: 2_322, total: 13_932, currency: "eur" },
        benefits: [
          {
            description: "Desktop licence for up to three machines",
            licenseKey: { key: "DSK-7F3A9C21-4B8E-4D0F-9A61-2C5E8B7D1F04", activationLimit: 3, expiresAt: null },
          },
          { description: "Priority support by email", licenseKey: null },
        ],
      }),
  },
];

/** The languages every template is drawn in: the four the documents translate, and one that falls back to English words. */
export const PREVIEW_LOCALES = ["en-US", "fr-FR", "de-DE", "ja-JP", "pt-BR"] as const;
