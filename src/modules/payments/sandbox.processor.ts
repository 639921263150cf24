import { createHash } from "node:crypto";
import type { ChargeOutcome, ChargeRequest, PaymentProcessor } from "./payment-processor.ts";

const PROCESSING_ERROR = "tok_chargeDeclinedProcessingError";

/**
 * Settles payments without leaving the process, driven by Stripe's test token names: every `tok_`
 * card succeeds, `tok_chargeDeclined…` tokens are declined, and the processing-error token fails.
 */
export const sandboxProcessor: PaymentProcessor = {
  async charge(request: ChargeRequest): Promise<ChargeOutcome> {
    const token = request.confirmationToken;
    if (token === PROCESSING_ERROR)
      return { status: "failed", message: "An error occurred while processing your card. Try again in a little bit." };
    if (token.startsWith("tok_chargeDeclined")) return { status: "declined", message: "Your card was declined." };
    if (!token.startsWith("tok_")) return { status: "declined", message: "The confirmation token is invalid." };
    // Deterministic per session, like an idempotent processor call.
    const digest = createHash("sha256").update(request.checkoutId).digest("hex").slice(0, 24);
    return { status: "succeeded", reference: `${request.setupOnly ? "seti" : "ch"}_sandbox_${digest}` };
  },
};
