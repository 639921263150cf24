import { createHash } from "node:crypto";
import Stripe from "stripe";
import type { StripeConfig } from "../../payments-config.ts";
import type {
  ChargeOutcome,
  ChargeRequest,
  DisputeCloseOutcome,
  DisputeCloseRequest,
  MethodSetupLookup,
  MethodSetupOutcome,
  MethodSetupRequest,
  OffSessionChargeOutcome,
  OffSessionChargeRequest,
  OnSessionChargeRequest,
  PaymentProcessor,
  ProcessorCustomer,
  RefundOutcome,
  RefundRequest,
} from "./payment-processor.ts";
import { ProcessorUnreachable } from "./payment-processor.ts";
import { createStripeClient } from "./stripe-client.ts";
import {
  idOf,
  offSessionOutcomeOf,
  offSessionRefusalOf,
  outcomeOfPaymentIntent,
  outcomeOfRefund,
  outcomeOfSetupIntent,
  refusalOf,
  setupOutcomeOf,
} from "./stripe-outcomes.ts";

const digest = (value: string) => createHash("sha256").update(value).digest("hex").slice(0, 32);

/** A card payment confirmed on the server: no redirect-based methods, so no `return_url` is needed. */
const CARDS_WITHOUT_REDIRECTS = { enabled: true, allow_redirects: "never" } as const;

/** Stripe answered a request it had seen (same idempotency key): that answer is the first one, not where things stand now. */
/** The shape of Stripe's SetupIntent ids: anything else is not asked about (an empty id would read Stripe's list instead). */
const SETUP_INTENT_ID = /^seti_[A-Za-z0-9]+$/;

const isReplay = (response: Stripe.Response<unknown>) => response.lastResponse.headers["idempotent-replayed"] === "true";

/**
 * The seam on Stripe (docs/decisions.md, "Stripe adapter"): a checkout's charge is one
 * PaymentIntent confirmed with the buyer's confirmation token (a SetupIntent when nothing is due
 * now), with the checkout and organization in its metadata and an idempotency key derived from the
 * checkout and the token, so a retried or recovered request never charges twice; an answer
 * replayed for that key is followed by a read of the intent as it stands now. One Stripe customer
 * per buyer, made on their first payment. Renewals and retries are off-session PaymentIntents on
 * the saved card, keyed by the attempt.
 */
export function createStripeProcessor(config: StripeConfig): PaymentProcessor {
  const stripe = createStripeClient(config);

  /** The buyer's Stripe customer: the one kept, else a new one, made once per `key`. */
  async function customerOf(customer: ProcessorCustomer, metadata: Record<string, string>, key: string): Promise<string> {
    if (customer.reference) return customer.reference;
    const made = await stripe.customers.create(
      { email: customer.email, ...(customer.name ? { name: customer.name } : {}), metadata },
      { idempotencyKey: key },
    );
    return made.id;
  }

  async function paymentIntentNow(response: Stripe.Response<Stripe.PaymentIntent>): Promise<Stripe.PaymentIntent> {
    return isReplay(response) ? stripe.paymentIntents.retrieve(response.id, { expand: ["payment_method"] }) : response;
  }

  async function setupIntentNow(response: Stripe.Response<Stripe.SetupIntent>): Promise<Stripe.SetupIntent> {
    return isReplay(response) ? stripe.setupIntents.retrieve(response.id, { expand: ["payment_method"] }) : response;
  }

  async function charge(request: ChargeRequest): Promise<ChargeOutcome> {
    const metadata = { organization_id: request.organizationId, checkout_id: request.checkoutId, type: "product" };
    const key = `checkout:${request.checkoutId}:${digest(request.confirmationToken)}`;
    try {
      const customer = await customerOf(request.customer, { organization_id: request.organizationId }, `${key}:customer`);
      const common = {
        customer,
        confirm: true,
        confirmation_token: request.confirmationToken,
        automatic_payment_methods: CARDS_WITHOUT_REDIRECTS,
        metadata,
        expand: ["payment_method"],
      };
      if (request.setupOnly) {
        const created = await stripe.setupIntents.create({ ...common, usage: "off_session" }, { idempotencyKey: key });
        return outcomeOfSetupIntent(await setupIntentNow(created));
      }
      const created = await stripe.paymentIntents.create(
        {
          ...common,
          amount: request.amount,
          currency: request.currency,
          ...(request.saveMethod ? { setup_future_usage: "off_session" as const } : {}),
        },
        { idempotencyKey: key },
      );
      return outcomeOfPaymentIntent(await paymentIntentNow(created));
    } catch (error) {
      return refusalOf(error);
    }
  }

  async function lookupCharge(reference: string): Promise<ChargeOutcome> {
    try {
      if (reference.startsWith("seti_"))
        return outcomeOfSetupIntent(await stripe.setupIntents.retrieve(reference, { expand: ["payment_method"] }));
      return outcomeOfPaymentIntent(await stripe.paymentIntents.retrieve(reference, { expand: ["payment_method"] }));
    } catch (error) {
      return refusalOf(error);
    }
  }

  async function chargeOffSession(request: OffSessionChargeRequest): Promise<OffSessionChargeOutcome> {
    try {
      const created = await stripe.paymentIntents.create(
        {
          amount: request.amount,
          currency: request.currency,
          ...(request.customerReference ? { customer: request.customerReference } : {}),
          payment_method: request.methodReference,
          confirm: true,
          off_session: true,
          metadata: { organization_id: request.organizationId, order_id: request.orderId, payment_trigger: request.trigger },
        },
        { idempotencyKey: `charge:${request.attemptId}` },
      );
      return offSessionOutcomeOf(await paymentIntentNow(created));
    } catch (error) {
      return offSessionRefusalOf(error);
    }
  }

  /**
   * The customer's own charge of an order (the portal's retry): no `off_session`, so Stripe may ask
   * for 3-D Secure, which the page finishes with the intent's client secret. A new card is kept
   * for later off-session charges (`setup_future_usage`), on the buyer's Stripe customer.
   */
  async function chargeOnSession(request: OnSessionChargeRequest): Promise<ChargeOutcome> {
    const key = `charge:${request.attemptId}`;
    const { method } = request;
    try {
      const paying =
        "confirmationToken" in method
          ? {
              customer: await customerOf(method.customer, { organization_id: request.organizationId }, `${key}:customer`),
              confirmation_token: method.confirmationToken,
              setup_future_usage: "off_session" as const,
            }
          : { ...(method.customerReference ? { customer: method.customerReference } : {}), payment_method: method.reference };
      const created = await stripe.paymentIntents.create(
        {
          amount: request.amount,
          currency: request.currency,
          ...paying,
          confirm: true,
          automatic_payment_methods: CARDS_WITHOUT_REDIRECTS,
          metadata: { organization_id: request.organizationId, order_id: request.orderId, payment_trigger: request.trigger },
          expand: ["payment_method"],
        },
        { idempotencyKey: key },
      );
      return outcomeOfPaymentIntent(await paymentIntentNow(created));
    } catch (error) {
      return refusalOf(error);
    }
  }

  /** Stripe refuses to cancel an intent that already succeeded (or was canceled): where it stands is then the answer. */
  /**
   * Cancels an intent nobody will finish (a checkout's buyer left; a portal retry waiting on a
   * challenge before another charge of its order), keyed by the intent. Stripe refuses to cancel an
   * intent that moved on (`payment_intent_unexpected_state`: it succeeded, or a first try whose
   * answer was lost canceled it): then where it stands now is the answer. A SetupIntent moves no
   * money and is not canceled (the calls this adapter makes have no SetupIntent cancel): one still
   * waiting is given up as it is.
   */
  async function cancelCharge(reference: string): Promise<ChargeOutcome> {
    try {
      if (reference.startsWith("seti_")) {
        const outcome = outcomeOfSetupIntent(await stripe.setupIntents.retrieve(reference, { expand: ["payment_method"] }));
        return outcome.status === "pending" && outcome.clientSecret
          ? { status: "failed", message: "The card setup was abandoned." }
          : outcome;
      }
      const canceled = await stripe.paymentIntents.cancel(
        reference,
        { cancellation_reason: "abandoned", expand: ["payment_method"] },
        { idempotencyKey: `cancel:${reference}` },
      );
      return outcomeOfPaymentIntent(canceled);
    } catch (error) {
      if (error instanceof Stripe.errors.StripeInvalidRequestError && error.code === "payment_intent_unexpected_state")
        return lookupCharge(reference);
      return refusalOf(error);
    }
  }

  async function setupMethod(request: MethodSetupRequest): Promise<MethodSetupOutcome> {
    const metadata = { organization_id: request.organizationId, customer_id: request.customerId };
    const key = `setup:${request.attemptId}`;
    try {
      const customer = await customerOf(request.customer, { organization_id: request.organizationId }, `customer:${request.customerId}`);
      const created = await stripe.setupIntents.create(
        {
          customer,
          confirm: true,
          confirmation_token: request.confirmationToken,
          usage: "off_session",
          automatic_payment_methods: CARDS_WITHOUT_REDIRECTS,
          metadata,
          expand: ["payment_method"],
        },
        { idempotencyKey: key },
      );
      return setupOutcomeOf(outcomeOfSetupIntent(await setupIntentNow(created)));
    } catch (error) {
      return refusalOf(error);
    }
  }

  /**
   * A SetupIntent read again (after the browser's 3-D Secure step): one of another Stripe customer
   * reads as unknown, as one Stripe does not know; without a Stripe customer nothing is asked.
   */
  async function lookupSetup(reference: string, customerReference: string | null): Promise<MethodSetupLookup> {
    if (customerReference === null) return { status: "no_customer" };
    if (!SETUP_INTENT_ID.test(reference)) return { status: "unknown" };
    let intent: Stripe.SetupIntent;
    try {
      intent = await stripe.setupIntents.retrieve(reference, { expand: ["payment_method"] });
    } catch (error) {
      if (error instanceof Stripe.errors.StripeInvalidRequestError) return { status: "unknown" };
      refusalOf(error);
      // Our key refused: nothing can be read, as if Stripe were away.
      throw new ProcessorUnreachable();
    }
    if (idOf(intent.customer) !== customerReference) return { status: "unknown" };
    return {
      status: "found",
      organizationId: intent.metadata?.["organization_id"] ?? null,
      customerId: intent.metadata?.["customer_id"] ?? null,
      outcome: setupOutcomeOf(outcomeOfSetupIntent(intent)),
    };
  }

  async function refund(request: RefundRequest): Promise<RefundOutcome> {
    try {
      const created = await stripe.refunds.create(
        { payment_intent: request.chargeReference, amount: request.amount, metadata: { refund_id: request.refundId } },
        { idempotencyKey: `refund:${request.refundId}` },
      );
      return outcomeOfRefund(isReplay(created) ? await stripe.refunds.retrieve(created.id) : created);
    } catch (error) {
      const refusal = refusalOf(error);
      return { status: "failed", message: refusal.message };
    }
  }

  /** Conceding: Stripe closes the dispute, which it settles as lost; keyed by the dispute, so a retried accept closes it once. */
  async function closeDispute(request: DisputeCloseRequest): Promise<DisputeCloseOutcome> {
    try {
      const closed = await stripe.disputes.close(request.disputeReference, {}, { idempotencyKey: `dispute-close:${request.disputeId}` });
      return closed.status === "lost"
        ? { status: "closed", disputeStatus: "lost" }
        : { status: "failed", message: `The dispute is ${closed.status}.` };
    } catch (error) {
      return { status: "failed", message: refusalOf(error).message };
    }
  }

  /** A method already detached (or unknown to Stripe) is what was asked for: the hosted service ignores those errors too. */
  async function detachMethod(reference: string): Promise<void> {
    try {
      await stripe.paymentMethods.detach(reference);
    } catch (error) {
      if (!(error instanceof Stripe.errors.StripeInvalidRequestError)) refusalOf(error);
    }
  }

  return {
    charge,
    lookupCharge,
    chargeOffSession,
    chargeOnSession,
    cancelCharge,
    setupMethod,
    lookupSetup,
    refund,
    closeDispute,
    detachMethod,
  };
}
