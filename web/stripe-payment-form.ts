import type { PaymentFormKind } from "../src/modules/checkout-page/checkout-page.data.ts";
import { h } from "./dom.ts";
import type { BillingDetails, PaymentForm, PaymentTerms } from "./payment-forms.ts";

// Stripe's Payment Element on the page: Stripe.js loaded from `STRIPE_JS_URL`, the card fields in
// Stripe's frame, a confirmation token made from them, and 3-D Secure finished with
// `handleNextAction` (the Stripe integration notes, §4 and §13). Only the calls the page makes are
// typed here: the project takes no dependency on `@stripe/stripe-js` for them.

interface StripeError {
  message?: string;
}
type ElementsOptions = {
  mode: PaymentTerms["mode"];
  amount?: number;
  currency?: string;
  setupFutureUsage?: "off_session";
  paymentMethodCreation: "manual";
};
interface StripeElements {
  create(type: "payment", options: { fields: { billingDetails: "never" } }): { mount(target: HTMLElement): void };
  update(options: Partial<ElementsOptions>): void;
  submit(): Promise<{ error?: StripeError }>;
}
type IntentAnswer = { paymentIntent?: { status: string }; setupIntent?: { status: string }; error?: StripeError };
interface StripeJs {
  elements(options: ElementsOptions): StripeElements;
  createConfirmationToken(options: {
    elements: StripeElements;
    params: { payment_method_data: { billing_details: BillingDetails } };
  }): Promise<{ confirmationToken?: { id: string }; error?: StripeError }>;
  handleNextAction(options: { clientSecret: string }): Promise<IntentAnswer>;
}
type StripeConstructor = (publishableKey: string) => StripeJs;

const UNAVAILABLE = "The payment form could not be loaded. Check your connection and reload the page.";
const NOT_AUTHENTICATED = "Your payment could not be authenticated. Try again or use another payment method.";

/** With billing fields hidden from the element, Stripe wants every one of them given: null when unknown. */
const NO_BILLING: BillingDetails = {
  name: null,
  email: null,
  phone: null,
  address: { line1: null, line2: null, city: null, state: null, postal_code: null, country: null },
};

/** Elements without an intent: the intent is made on the server at confirm, with the token. */
function elementsOptions(terms: PaymentTerms | undefined): ElementsOptions {
  if (!terms) return { mode: "setup", setupFutureUsage: "off_session", paymentMethodCreation: "manual" };
  return {
    mode: terms.mode,
    currency: terms.currency,
    ...(terms.mode === "setup" ? {} : { amount: terms.amount }),
    // A subscription (and a saved method) is charged again later, without the buyer.
    ...(terms.mode === "payment" ? {} : { setupFutureUsage: "off_session" as const }),
    paymentMethodCreation: "manual",
  };
}

/** Loads Stripe.js once, from the configured address (Stripe's, or a stand-in in tests). */
function loadStripe(jsUrl: string, publishableKey: string): Promise<StripeJs> {
  return new Promise((resolve, reject) => {
    const script = h("script", { src: jsUrl, async: true });
    script.addEventListener("load", () => {
      const stripe = (window as unknown as { Stripe?: StripeConstructor }).Stripe;
      if (stripe) resolve(stripe(publishableKey));
      else reject(new Error("Stripe.js did not define Stripe"));
    });
    script.addEventListener("error", () => reject(new Error("Stripe.js could not be loaded")));
    document.head.append(script);
  });
}

export function stripePaymentForm(options: Extract<PaymentFormKind, { kind: "stripe" }>): PaymentForm {
  let stripe: Promise<StripeJs> | null = null;
  let elements: StripeElements | null = null;
  const error = h("p", { class: "field-error", role: "alert", tabindex: -1, hidden: true });

  function show(message: string | null): void {
    error.textContent = message ?? "";
    error.hidden = message === null;
    if (message !== null) error.focus();
  }

  return {
    ready: true,
    mount(container, terms) {
      const slot = h("div", { class: "payment-element" });
      container.append(slot, error);
      stripe = loadStripe(options.jsUrl, options.publishableKey);
      stripe.then(
        (loaded) => {
          elements = loaded.elements(elementsOptions(terms));
          elements.create("payment", { fields: { billingDetails: "never" } }).mount(slot);
        },
        () => show(UNAVAILABLE),
      );
    },
    async tokenize(payer) {
      show(null);
      const loaded = await stripe?.catch(() => null);
      if (!loaded || !elements) {
        show(UNAVAILABLE);
        return null;
      }
      // The session may have changed since the element was made (product, discount, tax).
      if (payer) elements.update(elementsOptions(payer.terms));
      const submitted = await elements.submit();
      if (submitted.error) {
        show(submitted.error.message ?? UNAVAILABLE);
        return null;
      }
      const made = await loaded.createConfirmationToken({
        elements,
        params: { payment_method_data: { billing_details: payer?.billing ?? NO_BILLING } },
      });
      if (!made.confirmationToken) {
        show(made.error?.message ?? UNAVAILABLE);
        return null;
      }
      return made.confirmationToken.id;
    },
    showRefusal: show,
    async authenticate(clientSecret) {
      const loaded = await stripe?.catch(() => null);
      if (!loaded) return UNAVAILABLE;
      // Stripe may ask for more than one step; it answers `requires_action` while it does.
      for (let step = 0; step < 3; step += 1) {
        const answer = await loaded.handleNextAction({ clientSecret });
        if (answer.error) return answer.error.message ?? NOT_AUTHENTICATED;
        const status = (answer.paymentIntent ?? answer.setupIntent)?.status;
        if (status !== "requires_action") return null;
      }
      return NOT_AUTHENTICATED;
    },
  };
}
