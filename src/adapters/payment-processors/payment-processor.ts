import { AppError } from "../../http/errors.ts";

/** A payment method the processor keeps for later charges; only its handle and display facts are stored here. */
export interface SavedPaymentMethod {
  reference: string;
  type: "card";
  brand: string;
  last4: string;
  expMonth: number;
  expYear: number;
  /** The processor's customer the method is attached to (Stripe charges a saved method with its customer); null: none. */
  customerReference: string | null;
}

/** The buyer as the processor knows them: one processor customer per customer per organization, made on first payment. */
export interface ProcessorCustomer {
  /** The processor's customer kept for this buyer already; null: made with this request. */
  reference: string | null;
  email: string;
  name: string | null;
}

/** One attempt to take the session's money (or, for trials and metered plans, to save a payment method). */
export interface ChargeRequest {
  /** Idempotency key: a retried request for the same session must not charge twice. */
  checkoutId: string;
  organizationId: string;
  customer: ProcessorCustomer;
  amount: number;
  currency: string;
  confirmationToken: string;
  /** Nothing is due now; the method is saved for later charges. */
  setupOnly: boolean;
  /** Keep the method for later off-session charges (a subscription's renewals). */
  saveMethod: boolean;
}

export type ChargeOutcome =
  /** `method` is the saved method when the request asked to save it; `customerReference` the processor's customer charged. */
  | { status: "succeeded"; reference: string; method: SavedPaymentMethod | null; customerReference: string | null }
  /**
   * Not settled yet: the buyer must authenticate (3-D Secure; the page finishes it with
   * `clientSecret`), or the processor is still working. The processor's event settles it later.
   */
  | { status: "pending"; reference: string; clientSecret: string | null; customerReference: string | null }
  /** Refused by the issuer: the buyer may try another method. */
  | { status: "declined"; message: string }
  /** A technical failure that cannot be retried on this session. */
  | { status: "failed"; message: string };

/** A charge without the customer present, on a method saved earlier (a renewal, a dunning retry). */
export interface OffSessionChargeRequest {
  /** Idempotency key: the same attempt asked twice charges once. */
  attemptId: string;
  methodReference: string;
  /** The processor's customer the method is attached to. */
  customerReference: string | null;
  organizationId: string;
  orderId: string;
  /** Why the charge is made (the hosted service's `payment_trigger`). */
  trigger: string;
  amount: number;
  currency: string;
}

/** An off-session charge the processor refused, with what dunning decides on. */
export interface OffSessionRefusal {
  status: "declined" | "failed";
  message: string;
  /**
   * The decline code, in Stripe's vocabulary (its `decline_code`, else the error's `code`:
   * `insufficient_funds`, `lost_card`, `expired_card`, …); null when the processor gave none.
   */
  declineCode: string | null;
  /** The processor no longer accepts the saved method at all (detached, another customer's, a mandate missing): it is forgotten. */
  methodUnusable: boolean;
}

export type OffSessionChargeOutcome = { status: "succeeded"; reference: string } | OffSessionRefusal;

/**
 * A charge of an order with the customer present (the portal's retry): on a saved method, or on a
 * new card from a confirmation token, kept for later charges when it succeeds. The customer may be
 * asked to authenticate (3-D Secure): the outcome is then `pending` with the client secret.
 */
export interface OnSessionChargeRequest {
  /** Idempotency key: the same attempt asked twice charges once. */
  attemptId: string;
  organizationId: string;
  orderId: string;
  /** Why the charge is made (the hosted service's `payment_trigger`). */
  trigger: string;
  amount: number;
  currency: string;
  method: { reference: string; customerReference: string | null } | { confirmationToken: string; customer: ProcessorCustomer };
}

/** Saving a method for later charges without charging it (the customer adds a card outside a checkout). */
export interface MethodSetupRequest {
  /** Idempotency key: the same setup asked twice saves one method. */
  attemptId: string;
  /** The customer the method is saved for (this server's id). */
  customerId: string;
  organizationId: string;
  /** The same buyer as the processor knows them. */
  customer: ProcessorCustomer;
  confirmationToken: string;
}

export type MethodSetupOutcome =
  | { status: "succeeded"; method: SavedPaymentMethod }
  /**
   * The buyer must authenticate the card first (3-D Secure), finished in the browser with
   * `clientSecret`; `customerReference` is the processor's customer the setup is for (made now, maybe).
   */
  | { status: "pending"; reference: string; clientSecret: string; customerReference: string | null }
  | { status: "declined" | "failed"; message: string };

/** A setup asked about again by its reference (after the browser's 3-D Secure step), for the processor customer it must belong to. */
export type MethodSetupLookup =
  /** The buyer has no processor customer: no setup can be theirs yet. */
  | { status: "no_customer" }
  /** The processor knows no such setup of that customer (unknown, or another customer's). */
  | { status: "unknown" }
  /** Theirs: whom this server made it for (its metadata) and how it stands now. */
  | { status: "found"; organizationId: string | null; customerId: string | null; outcome: MethodSetupOutcome };

/** Giving back part or all of a charge that succeeded. */
export interface RefundRequest {
  /** Idempotency key: the same refund asked twice gives the money back once. */
  refundId: string;
  /** The processor's reference of the charge (the payment) being refunded. */
  chargeReference: string;
  /** What goes back to the buyer: the refund's amount and its tax share. */
  amount: number;
  currency: string;
}

export type RefundOutcome =
  | { status: "succeeded"; reference: string }
  /** The processor settles it later (its event says how): nothing changes on the order meanwhile. */
  | { status: "pending"; reference: string }
  | { status: "failed"; message: string };

/** A refund's state as the processor reports it later, in its events: a pending refund settles, a settled one may fail after all. */
export interface ProcessorRefundUpdate {
  /** This server's refund id as the refund request carried it; null: a refund made outside this server. */
  refundId: string | null;
  /** The processor's refund id. */
  reference: string;
  outcome: RefundOutcome;
}

/** Conceding a dispute the card network opened on a charge (the merchant accepts the chargeback). */
export interface DisputeCloseRequest {
  /** The processor's id of the dispute. */
  disputeReference: string;
  /** Idempotency key: the dispute's own id, so a retried accept closes it once. */
  disputeId: string;
}

/** Closed: the processor settles a conceded dispute as lost. Failed: it stays as it was. */
export type DisputeCloseOutcome = { status: "closed"; disputeStatus: "lost" } | { status: "failed"; message: string };

/**
 * The seam a real processor adapter (Stripe) plugs into: `charge` is a PaymentIntent confirmed with
 * the buyer's confirmation token (or a SetupIntent when `setupOnly`), `saveMethod` its
 * `setup_future_usage: off_session`; `chargeOffSession` a PaymentIntent with `off_session: true`;
 * `chargeOnSession` a PaymentIntent confirmed without `off_session` (3-D Secure possible);
 * `setupMethod` a SetupIntent (usage off_session) confirmed with the token on the customer;
 * `refund` a Refund of the charge's PaymentIntent, with the refund's id as the idempotency key;
 * `closeDispute` Stripe's `Dispute.close`; `cancelCharge` its `PaymentIntent.cancel`.
 * A failure to reach the processor at all throws `ProcessorUnreachable`: the charge may or may not
 * have happened, so the caller keeps its state and asks again later (`lookupCharge`, or the same
 * idempotent request).
 */
export interface PaymentProcessor {
  charge(request: ChargeRequest): Promise<ChargeOutcome>;
  /** Where a charge `charge` started stands now (its processor reference): after a 3-D Secure step, an event, a crash. */
  lookupCharge(reference: string): Promise<ChargeOutcome>;
  chargeOffSession(request: OffSessionChargeRequest): Promise<OffSessionChargeOutcome>;
  chargeOnSession(request: OnSessionChargeRequest): Promise<ChargeOutcome>;
  /**
   * Gives up a charge still waiting for the customer (a 3-D Secure step never finished): a checkout's
   * when the session expires, a portal retry's before another charge of the same order. Answers
   * where it stands after: `failed` once canceled, `succeeded` when the money moved before the
   * cancel reached it, `pending` while the processor is still working on it.
   */
  cancelCharge(reference: string): Promise<ChargeOutcome>;
  setupMethod(request: MethodSetupRequest): Promise<MethodSetupOutcome>;
  /** Where a setup `setupMethod` left pending stands now, if it is `customerReference`'s. */
  lookupSetup(reference: string, customerReference: string | null): Promise<MethodSetupLookup>;
  refund(request: RefundRequest): Promise<RefundOutcome>;
  closeDispute(request: DisputeCloseRequest): Promise<DisputeCloseOutcome>;
  /** The customer deleted a saved method: it is removed at the processor too (Stripe's `PaymentMethod.detach`); one already gone is fine. */
  detachMethod(reference: string): Promise<void>;
}

/**
 * The processor did not answer (network, timeout, its own outage or rate limit): the outcome is
 * unknown, so nothing is settled; the caller's recovery asks again later. 502 to a request.
 */
export class ProcessorUnreachable extends AppError {
  constructor() {
    super(502, "PaymentProcessorUnavailable", "The payment processor could not be reached. Nothing was settled; retry later.");
  }
}
