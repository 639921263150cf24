import type { PaymentFormKind } from "../src/modules/checkout-page/checkout-page.data.ts";
import { field, h, input, setFieldError, type Field } from "./dom.ts";
import { stripePaymentForm } from "./stripe-payment-form.ts";

/**
 * What the money is for, as the session says now: charged now (once, or the first of a
 * subscription's payments), or only saved for later (a trial, nothing due today).
 */
export interface PaymentTerms {
  mode: "payment" | "subscription" | "setup";
  amount: number;
  currency: string;
}

/** The buyer's details as the page collected them, each null when unknown. */
export interface BillingDetails {
  name: string | null;
  email: string | null;
  phone: string | null;
  address: Record<"line1" | "line2" | "city" | "state" | "postal_code" | "country", string | null>;
}

/**
 * The payment step, as the rest of the page sees it: it draws its fields, and turns what the buyer
 * entered into the confirmation token `confirm` takes: the sandbox's test cards here, Stripe's
 * Payment Element in `stripe-payment-form.ts`. The checkout page passes the session's terms and the
 * buyer's details; the portal, which only saves a method, passes neither.
 */
export interface PaymentForm {
  /** Whether a payment can be taken at all: the page offers no way to pay when it cannot. */
  readonly ready: boolean;
  mount(container: HTMLElement, terms?: PaymentTerms): void;
  /** The token, or null once the form shows the buyer what to fix. */
  tokenize(payer?: { terms: PaymentTerms; billing: BillingDetails }): Promise<string | null>;
  /** Shows a refusal from the processor where the buyer will look, and moves focus there. */
  showRefusal(message: string): void;
  /**
   * Finishes on the page what the processor asks of the buyer after the confirm (3-D Secure, with
   * the intent's client secret): the processor's refusal, or null once the buyer has done their
   * part. A form whose processor never asks leaves it out.
   */
  authenticate?(clientSecret: string): Promise<string | null>;
}

/** Stripe's test card numbers, and the sandbox processor's test token each stands for. */
const TEST_CARDS: Record<string, string> = {
  "4242424242424242": "tok_visa",
  "4000056655665556": "tok_visa_debit",
  "5555555555554444": "tok_mastercard",
  "378282246310005": "tok_amex",
  "4000000000000002": "tok_chargeDeclined",
  "4000000000009995": "tok_chargeDeclinedInsufficientFunds",
  "4000000000000119": "tok_chargeDeclinedProcessingError",
  "4000000000000341": "tok_chargeCustomerFail",
};

function sandboxCardForm(): PaymentForm {
  let number: Field | null = null;
  let expiry: Field | null = null;
  let cvc: Field | null = null;
  return {
    ready: true,
    mount(container) {
      number = field(
        "Card number",
        input({ name: "card_number", inputmode: "numeric", autocomplete: "cc-number", required: true, maxlength: 23 }),
        "Test mode: 4242 4242 4242 4242 succeeds, 4000 0000 0000 0002 is declined.",
      );
      expiry = field(
        "Expiry (MM / YY)",
        input({ name: "card_expiry", inputmode: "numeric", autocomplete: "cc-exp", required: true, maxlength: 7 }),
      );
      cvc = field("Security code", input({ name: "card_cvc", inputmode: "numeric", autocomplete: "cc-csc", required: true, maxlength: 4 }));
      container.append(
        h("p", { class: "notice" }, "Sandbox: no real payment is made. Use one of Stripe's test card numbers."),
        number.wrapper,
        h("div", { class: "row" }, expiry.wrapper, cvc.wrapper),
      );
    },
    async tokenize() {
      if (!number || !expiry || !cvc) return null;
      const problems: [Field, string | null][] = [
        [number, TEST_CARDS[number.control.value.replace(/[\s-]/g, "")] ? null : "Enter a test card number, such as 4242 4242 4242 4242."],
        [expiry, /^(0[1-9]|1[0-2])\s*\/\s*\d{2}$/.test(expiry.control.value.trim()) ? null : "Enter the expiry as MM / YY."],
        [cvc, /^\d{3,4}$/.test(cvc.control.value.trim()) ? null : "Enter the 3 or 4 digit security code."],
      ];
      for (const [target, message] of problems) setFieldError(target, message);
      const first = problems.find(([, message]) => message !== null);
      if (first) {
        first[0].control.focus();
        return null;
      }
      return TEST_CARDS[number.control.value.replace(/[\s-]/g, "")] ?? null;
    },
    showRefusal(message) {
      if (!number) return;
      setFieldError(number, message);
      number.control.focus();
    },
  };
}

/** No processor this page can drive: a payment cannot be taken here. */
function unavailableForm(): PaymentForm {
  const message = "Payments are not available on this server yet. Please contact the seller.";
  return {
    ready: false,
    mount(container) {
      container.append(h("p", { class: "notice" }, message));
    },
    async tokenize() {
      return null;
    },
    showRefusal() {},
  };
}

export function paymentFormFor(form: PaymentFormKind): PaymentForm {
  switch (form.kind) {
    case "sandbox_card":
      return sandboxCardForm();
    case "stripe":
      return stripePaymentForm(form);
    case "none":
      return unavailableForm();
  }
}
