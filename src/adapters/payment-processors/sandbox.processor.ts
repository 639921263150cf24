import { createHash } from "node:crypto";
import type {
  ChargeOutcome,
  ChargeRequest,
  DisputeCloseOutcome,
  MethodSetupLookup,
  MethodSetupOutcome,
  MethodSetupRequest,
  OffSessionChargeOutcome,
  OffSessionChargeRequest,
  OnSessionChargeRequest,
  PaymentProcessor,
  RefundOutcome,
  RefundRequest,
  SavedPaymentMethod,
} from "./payment-processor.ts";

const PROCESSING_ERROR = "tok_chargeDeclinedProcessingError";
/** Attaches fine, then declines every later charge (Stripe's test token of the same name). */
const CUSTOMER_FAIL = "tok_chargeCustomerFail";
const METHOD_PREFIX = "pm_sandbox_";
const CHARGE_PREFIX = "ch_sandbox_";
const SETUP_PREFIX = "seti_sandbox_";

/** Display facts of Stripe's test cards, by token. */
const CARDS: Record<string, { brand: string; last4: string }> = {
  tok_visa: { brand: "visa", last4: "4242" },
  tok_visa_debit: { brand: "visa", last4: "5556" },
  tok_mastercard: { brand: "mastercard", last4: "4444" },
  tok_amex: { brand: "amex", last4: "8431" },
  [CUSTOMER_FAIL]: { brand: "visa", last4: "0341" },
};

const digest = (value: string) => createHash("sha256").update(value).digest("hex").slice(0, 24);

/**
 * The saved method's handle carries the token it came from, so later charges behave as that token
 * does; `key` (the session or the setup attempt) makes it deterministic per request.
 */
function saveMethod(token: string, key: string): SavedPaymentMethod {
  const card = CARDS[token] ?? { brand: "visa", last4: "4242" };
  return {
    reference: `${METHOD_PREFIX}${token}_${digest(key)}`,
    type: "card",
    ...card,
    expMonth: 12,
    expYear: 2034,
    customerReference: null,
  };
}

/** How the issuer answers a confirmation token, whether it is charged or only set up. */
function refusal(token: string): { status: "declined" | "failed"; message: string } | null {
  if (token === PROCESSING_ERROR)
    return { status: "failed", message: "An error occurred while processing your card. Try again in a little bit." };
  if (token.startsWith("tok_chargeDeclined")) return { status: "declined", message: "Your card was declined." };
  if (!token.startsWith("tok_")) return { status: "declined", message: "The confirmation token is invalid." };
  return null;
}

const tokenOfMethod = (reference: string): string | null =>
  reference.startsWith(METHOD_PREFIX) ? reference.slice(METHOD_PREFIX.length, reference.lastIndexOf("_")) : null;

/**
 * Settles payments without leaving the process, driven by Stripe's test token names: every `tok_`
 * card succeeds, `tok_chargeDeclined…` tokens are declined, the processing-error token fails, and
 * `tok_chargeCustomerFail` is accepted at checkout (or set up) but declines every later off-session
 * charge, whether the customer is present or not (a portal retry on a new card behaves as its
 * setup and then its charge would). Nothing ever needs a further step (no 3-D Secure), so no
 * charge or setup is ever left waiting. A refund of one of its
 * own charges always succeeds, its reference derived from the refund's id (the same refund asked
 * twice answers the same); a charge it did not make (no `ch_sandbox_` reference) fails. It has no
 * customers of its own (`customerReference` is always null), and opens no disputes (tests record them
 * as a processor's events would); closing one concedes it: lost.
 */
export const sandboxProcessor: PaymentProcessor = {
  async charge(request: ChargeRequest): Promise<ChargeOutcome> {
    const token = request.confirmationToken;
    const refused = refusal(token);
    if (refused) return refused;
    // Deterministic per session, like an idempotent processor call.
    return {
      status: "succeeded",
      reference: `${request.setupOnly ? SETUP_PREFIX : CHARGE_PREFIX}${digest(request.checkoutId)}`,
      method: request.saveMethod ? saveMethod(token, request.checkoutId) : null,
      customerReference: null,
    };
  },

  // Its charges settle as they are made, so a charge it made stands succeeded; it saves no methods later.
  async lookupCharge(reference: string): Promise<ChargeOutcome> {
    if (!reference.startsWith(CHARGE_PREFIX) && !reference.startsWith(SETUP_PREFIX))
      return { status: "failed", message: `No such charge: '${reference}'` };
    return { status: "succeeded", reference, method: null, customerReference: null };
  },

  async chargeOffSession(request: OffSessionChargeRequest): Promise<OffSessionChargeOutcome> {
    const token = tokenOfMethod(request.methodReference);
    if (token === null) return { status: "failed", message: "No such payment method.", declineCode: null, methodUnusable: false };
    // Stripe's codes for its test card of the same name: a generic decline, worth retrying.
    if (token === CUSTOMER_FAIL)
      return { status: "declined", message: "Your card was declined.", declineCode: "generic_decline", methodUnusable: false };
    return { status: "succeeded", reference: `${CHARGE_PREFIX}${digest(request.attemptId)}` };
  },

  async chargeOnSession(request: OnSessionChargeRequest): Promise<ChargeOutcome> {
    const { method } = request;
    if ("reference" in method) {
      const outcome = await sandboxProcessor.chargeOffSession({ ...request, methodReference: method.reference, customerReference: null });
      return outcome.status === "succeeded" ? { ...outcome, method: null, customerReference: null } : outcome;
    }
    const token = method.confirmationToken;
    const refused =
      refusal(token) ?? (token === CUSTOMER_FAIL ? { status: "declined" as const, message: "Your card was declined." } : null);
    if (refused) return refused;
    return {
      status: "succeeded",
      reference: `${CHARGE_PREFIX}${digest(request.attemptId)}`,
      method: saveMethod(token, request.attemptId),
      customerReference: null,
    };
  },

  // None of its charges ever waits: there is nothing to give up, only where it stands.
  async cancelCharge(reference: string): Promise<ChargeOutcome> {
    return sandboxProcessor.lookupCharge(reference);
  },

  // tok_chargeCustomerFail is set up fine, as at checkout: only its charges decline.
  async setupMethod(request: MethodSetupRequest): Promise<MethodSetupOutcome> {
    const refused = refusal(request.confirmationToken);
    if (refused) return refused;
    return { status: "succeeded", method: saveMethod(request.confirmationToken, `${request.customerId}:${request.attemptId}`) };
  },

  // Its setups never wait for a further step: no setup is ever asked about again.
  async lookupSetup(): Promise<MethodSetupLookup> {
    return { status: "unknown" };
  },

  async refund(request: RefundRequest): Promise<RefundOutcome> {
    if (!request.chargeReference.startsWith(CHARGE_PREFIX))
      return { status: "failed", message: `No such charge: '${request.chargeReference}'` };
    return { status: "succeeded", reference: `re_sandbox_${digest(request.refundId)}` };
  },

  async closeDispute(): Promise<DisputeCloseOutcome> {
    return { status: "closed", disputeStatus: "lost" };
  },

  // Its methods live only in their handles: nothing to remove.
  async detachMethod(): Promise<void> {},
};
