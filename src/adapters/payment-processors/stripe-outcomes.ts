import Stripe from "stripe";
import type { ChargeOutcome, MethodSetupOutcome, OffSessionChargeOutcome, RefundOutcome, SavedPaymentMethod } from "./payment-processor.ts";
import { ProcessorUnreachable } from "./payment-processor.ts";

// How Stripe's objects and errors read as the processor seam's outcomes.

export const idOf = (value: string | { id: string } | null): string | null =>
  value === null ? null : typeof value === "string" ? value : value.id;

/** A card Stripe saved for off-session charges, as this server keeps it: the handle and its display facts only. */
export function savedMethodOf(method: string | Stripe.PaymentMethod | null, customerReference: string | null): SavedPaymentMethod | null {
  if (method === null || typeof method === "string") return null;
  return {
    reference: method.id,
    type: "card",
    brand: method.card?.brand ?? "unknown",
    last4: method.card?.last4 ?? "0000",
    expMonth: method.card?.exp_month ?? 0,
    expYear: method.card?.exp_year ?? 0,
    customerReference: idOf(method.customer) ?? customerReference,
  };
}

const DECLINED = "Your card was declined.";

/**
 * A PaymentIntent's status as the seam's outcome: the money moved (`succeeded`), not yet (the
 * buyer's 3-D Secure step, or processing), or refused (`requires_payment_method` after a failed
 * attempt; `canceled`).
 */
export function outcomeOfPaymentIntent(intent: Stripe.PaymentIntent): ChargeOutcome {
  const customerReference = idOf(intent.customer);
  switch (intent.status) {
    case "succeeded":
      return {
        status: "succeeded",
        reference: intent.id,
        method: intent.setup_future_usage ? savedMethodOf(intent.payment_method, customerReference) : null,
        customerReference,
      };
    case "requires_action":
    case "requires_confirmation":
      return { status: "pending", reference: intent.id, clientSecret: intent.client_secret, customerReference };
    case "processing":
    case "requires_capture":
      return { status: "pending", reference: intent.id, clientSecret: null, customerReference };
    case "requires_payment_method":
      return { status: "declined", message: intent.last_payment_error?.message ?? DECLINED };
    default:
      return { status: "failed", message: "The payment was canceled." };
  }
}

/** A SetupIntent's status: the card saved, waiting for the buyer's 3-D Secure step, or refused. */
export function outcomeOfSetupIntent(intent: Stripe.SetupIntent): ChargeOutcome {
  const customerReference = idOf(intent.customer);
  switch (intent.status) {
    case "succeeded":
      return {
        status: "succeeded",
        reference: intent.id,
        method: savedMethodOf(intent.payment_method, customerReference),
        customerReference,
      };
    case "requires_action":
    case "requires_confirmation":
      return { status: "pending", reference: intent.id, clientSecret: intent.client_secret, customerReference };
    case "processing":
      return { status: "pending", reference: intent.id, clientSecret: null, customerReference };
    case "requires_payment_method":
      return { status: "declined", message: intent.last_setup_error?.message ?? DECLINED };
    default:
      return { status: "failed", message: "The card setup was canceled." };
  }
}

/** A setup outside a checkout (the portal): the same statuses, the saved method required on success. */
export function setupOutcomeOf(outcome: ChargeOutcome): MethodSetupOutcome {
  if (outcome.status === "succeeded")
    return outcome.method ? { status: "succeeded", method: outcome.method } : { status: "failed", message: "No card was saved." };
  if (outcome.status === "pending")
    return outcome.clientSecret
      ? {
          status: "pending",
          reference: outcome.reference,
          clientSecret: outcome.clientSecret,
          customerReference: outcome.customerReference,
        }
      : { status: "failed", message: "The card setup is still processing." };
  return outcome;
}

/** The decline code of a Stripe error: the issuer's `decline_code`, else the error's own `code` (`expired_card`, `incorrect_cvc`). */
const declineCodeOf = (error: { decline_code?: string; code?: string } | null | undefined): string | null =>
  error?.decline_code ?? error?.code ?? null;

/** An off-session charge: the customer is not there to authenticate, so anything but `succeeded` is a decline. */
export function offSessionOutcomeOf(intent: Stripe.PaymentIntent): OffSessionChargeOutcome {
  if (intent.status === "succeeded") return { status: "succeeded", reference: intent.id };
  if (intent.status === "canceled")
    return { status: "failed", message: "The payment was canceled.", declineCode: null, methodUnusable: false };
  const error = intent.last_payment_error;
  return { status: "declined", message: error?.message ?? DECLINED, declineCode: declineCodeOf(error), methodUnusable: false };
}

/**
 * What Stripe says when it refuses the saved method itself rather than the charge (the hosted
 * service's three cases): the method was detached, belongs to another customer, or needs a
 * mandate it lacks. No error code tells them apart, only the message.
 */
const UNUSABLE_METHOD = /detached from a customer|not attached to the customer|does not belong to|mandate/i;

/** A refused off-session charge (thrown by the SDK): the refusal with its decline code, and whether the method is gone for good. */
export function offSessionRefusalOf(error: unknown): OffSessionChargeOutcome {
  const refusal = refusalOf(error);
  return {
    ...refusal,
    declineCode: error instanceof Stripe.errors.StripeCardError ? declineCodeOf(error) : null,
    methodUnusable: error instanceof Stripe.errors.StripeInvalidRequestError && UNUSABLE_METHOD.test(error.message),
  };
}

/** A Refund's status: settled now, later (its events), or refused. */
export function outcomeOfRefund(refund: Stripe.Refund): RefundOutcome {
  if (refund.status === "succeeded") return { status: "succeeded", reference: refund.id };
  if (refund.status === "pending" || refund.status === "requires_action") return { status: "pending", reference: refund.id };
  return { status: "failed", message: refund.failure_reason ? `The refund failed: ${refund.failure_reason}.` : "The refund failed." };
}

/**
 * Stripe's errors: a card error is the issuer's refusal (the buyer may try another card); an
 * invalid request (an expired confirmation token, a detached card) fails this attempt; anything
 * else (network, Stripe's outage, rate limits) leaves the outcome unknown — the caller settles it
 * later from Stripe's answer, so it is thrown. Our own key refused is a failure too, not an outage.
 */
export function refusalOf(error: unknown): { status: "declined" | "failed"; message: string } {
  if (error instanceof Stripe.errors.StripeCardError) return { status: "declined", message: error.message || DECLINED };
  if (
    error instanceof Stripe.errors.StripeInvalidRequestError ||
    error instanceof Stripe.errors.StripeAuthenticationError ||
    error instanceof Stripe.errors.StripePermissionError ||
    error instanceof Stripe.errors.StripeIdempotencyError
  )
    return { status: "failed", message: error.message };
  if (error instanceof Stripe.errors.StripeError) throw new ProcessorUnreachable();
  throw error;
}
