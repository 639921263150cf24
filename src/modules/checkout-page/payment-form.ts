import type { StripeConfig } from "../../payments-config.ts";
import { NO_PAGE_SOURCES, type PageSources } from "../../pages/html-page.ts";
import type { PaymentFormKind } from "./checkout-page.data.ts";

/** The payment form the pages (checkout, portal) show, and the outside origins their CSP must allow for it. */
export interface PaymentFormSetup {
  readonly form: PaymentFormKind;
  readonly sources: PageSources;
}

export const sandboxPaymentForm: PaymentFormSetup = { form: { kind: "sandbox_card" }, sources: NO_PAGE_SOURCES };
export const noPaymentForm: PaymentFormSetup = { form: { kind: "none" }, sources: NO_PAGE_SOURCES };

/** Where Stripe serves Stripe.js (`STRIPE_JS_URL`'s default). */
const STRIPE_JS_ORIGIN = "https://js.stripe.com";

/**
 * Stripe's Payment Element: Stripe.js from `jsUrl`, which frames its card fields from its own
 * origin, calls the API, and frames the 3-D Secure challenge from `hooks.stripe.com` (Stripe's
 * CSP guidance). `apiUrl` is Stripe's API itself in production; a stand-in serves both in tests.
 */
export function stripePaymentForm(stripe: StripeConfig): PaymentFormSetup {
  const jsOrigin = new URL(stripe.jsUrl).origin;
  // Stripe's own Stripe.js also loads from its subdomains; a stand-in or proxy serves everything itself.
  const scripts = jsOrigin === STRIPE_JS_ORIGIN ? [jsOrigin, "https://*.js.stripe.com"] : [jsOrigin];
  return {
    form: { kind: "stripe", publishableKey: stripe.publishableKey, jsUrl: stripe.jsUrl },
    sources: {
      script: scripts,
      connect: [stripe.apiUrl.origin],
      frame: jsOrigin === STRIPE_JS_ORIGIN ? [...scripts, "https://hooks.stripe.com"] : scripts,
    },
  };
}
