import Stripe from "stripe";
import type { ProcessorRefundUpdate } from "./payment-processor.ts";
import { outcomeOfRefund } from "./stripe-outcomes.ts";

/** How long after Stripe signed an event it is still taken (the SDK's default: a replay window of five minutes). */
const SIGNATURE_TOLERANCE_SECONDS = 300;

export type StripeEventReading =
  | { status: "verified"; event: Stripe.Event }
  /** The signature does not match the body under the endpoint's secret, or was made outside the tolerance. */
  | { status: "bad_signature" }
  /** Signed, but not an event (not JSON, or no id and type). */
  | { status: "bad_payload" };

const isEvent = (value: unknown): value is Stripe.Event =>
  typeof value === "object" &&
  value !== null &&
  typeof (value as { id?: unknown }).id === "string" &&
  typeof (value as { type?: unknown }).type === "string" &&
  typeof (value as { data?: { object?: unknown } }).data?.object === "object";

/**
 * Verifies a webhook's `Stripe-Signature` over the exact bytes received (the SDK's `constructEvent`),
 * its age measured at `receivedAt` (the application's clock, so it can be driven), then reads the event.
 */
export function readStripeEvent(rawBody: Buffer, signature: string, secret: string, receivedAt: Date): StripeEventReading {
  let parsed: unknown;
  try {
    parsed = Stripe.webhooks.constructEvent(rawBody, signature, secret, SIGNATURE_TOLERANCE_SECONDS, undefined, receivedAt.getTime());
  } catch (error) {
    if (error instanceof Stripe.errors.StripeSignatureVerificationError) return { status: "bad_signature" };
    if (error instanceof SyntaxError) return { status: "bad_payload" };
    throw error;
  }
  return isEvent(parsed) ? { status: "verified", event: parsed } : { status: "bad_payload" };
}

/** A Refund object of a `refund.*` event as the seam's update: whose it is (our id, in its metadata) and how it stands. */
export const refundUpdateOf = (refund: Stripe.Refund): ProcessorRefundUpdate => ({
  refundId: refund.metadata?.["refund_id"] ?? null,
  reference: refund.id,
  outcome: outcomeOfRefund(refund),
});
