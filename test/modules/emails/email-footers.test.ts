import { describe, expect, it } from "vitest";
import { documentLanguage } from "../../../src/documents/language.ts";
import { emailWords, type EmailTopic } from "../../../src/modules/emails/email-words.ts";
import { EMAIL_SAMPLES } from "../../../scripts/email-samples.ts";

// Each customer email's footer says why its reader got it, in the email's language: a seat
// invitation or an email change is not "about your purchase".

/** What each customer template is about; a template missing here fails the test. */
const TOPICS: Record<string, EmailTopic> = {
  order_confirmation: "purchase",
  subscription_confirmation: "purchase",
  subscription_cycled: "purchase",
  subscription_cycled_after_trial: "purchase",
  "subscription_cycled.usage": "purchase",
  refund_issued: "purchase",
  subscription_cancellation: "subscription",
  subscription_uncanceled: "subscription",
  subscription_revoked: "subscription",
  subscription_renewal_reminder: "subscription",
  subscription_trial_conversion_reminder: "subscription",
  subscription_past_due: "subscription",
  customer_session_code: "account",
  customer_email_update: "email-change",
  customer_email_changed: "email-change",
  seat_invitation: "invitation",
};
const LOCALES = ["en-US", "fr-FR", "de-DE", "ja-JP"];
const ORGANIZATION = "Ada & Co <Software>";
const RECIPIENT = "ada.lovelace@example.com";
/** The samples' recipient: the new address for the email that verifies it. */
const recipientOf = (template: string) => (template === "customer_email_update" ? "ada.byron-king@example.com" : RECIPIENT);
// The seller's notices are English only and carry no customer footer.
const customerSamples = EMAIL_SAMPLES.filter((sample) => sample.locales === undefined);

describe("the customer emails' footers", () => {
  it("covers every customer template", () => {
    expect(customerSamples.map((sample) => sample.template).sort()).toEqual(Object.keys(TOPICS).sort());
  });

  for (const sample of customerSamples) {
    it(`${sample.template} says it is about the ${TOPICS[sample.template]} in en, fr, de and ja`, () => {
      for (const locale of LOCALES) {
        const footer = emailWords(documentLanguage(locale)).sentTo(recipientOf(sample.template), ORGANIZATION, TOPICS[sample.template]!);
        expect(sample.render(locale).text).toContain(footer);
      }
    });
  }

  it("words each topic differently in every language", () => {
    for (const locale of LOCALES) {
      const words = emailWords(documentLanguage(locale));
      const footers = (["purchase", "subscription", "account", "invitation", "email-change"] as const).map((topic) =>
        words.sentTo(RECIPIENT, ORGANIZATION, topic),
      );
      expect(new Set(footers).size).toBe(footers.length);
      if (locale !== "en-US")
        expect(footers).not.toContain(emailWords(documentLanguage("en-US")).sentTo(RECIPIENT, ORGANIZATION, "purchase"));
    }
  });
});
