/** One attempt to take the session's money (or, for trials and metered plans, to save a payment method). */
export interface ChargeRequest {
  /** Idempotency key: a retried request for the same session must not charge twice. */
  checkoutId: string;
  amount: number;
  currency: string;
  confirmationToken: string;
  /** Nothing is due now; the method is saved for later charges. */
  setupOnly: boolean;
}

export type ChargeOutcome =
  | { status: "succeeded"; reference: string }
  /** Refused by the issuer: the buyer may try another method. */
  | { status: "declined"; message: string }
  /** A technical failure that cannot be retried on this session. */
  | { status: "failed"; message: string };

/** The seam a real processor adapter (Stripe) plugs into. */
export interface PaymentProcessor {
  charge(request: ChargeRequest): Promise<ChargeOutcome>;
}
