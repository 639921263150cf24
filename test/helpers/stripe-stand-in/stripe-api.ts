import { randomBytes } from "node:crypto";
import type { FormObject, FormValue } from "./form-body.ts";
import { TEST_CARDS, type TestCard } from "./test-cards.ts";

// The stand-in's Stripe: its objects and what each API call does to them, as Stripe documents.

export type StripeObject = Record<string, unknown> & { id: string; object: string };

/** An API error in Stripe's shape (`{error: {type, code, decline_code, message, …}}`). */
export class StripeApiError extends Error {
  readonly status: number;
  readonly body: Record<string, unknown>;
  constructor(status: number, body: Record<string, unknown>) {
    super(String(body.message));
    this.status = status;
    this.body = body;
  }
}

const id = (prefix: string) => `${prefix}_${randomBytes(12).toString("hex")}`;
const secretOf = (objectId: string) => `${objectId}_secret_${randomBytes(12).toString("hex")}`;
const now = () => Math.floor(Date.now() / 1000);
const text = (value: FormValue | undefined): string | undefined => (typeof value === "string" ? value : undefined);
const flag = (value: FormValue | undefined) => value === "true";
const metadataOf = (value: FormValue | undefined): Record<string, string> =>
  typeof value === "object" && !Array.isArray(value)
    ? Object.fromEntries(Object.entries(value).filter((entry): entry is [string, string] => typeof entry[1] === "string"))
    : {};

const missing = (kind: string, value: string, param: string) =>
  new StripeApiError(404, { type: "invalid_request_error", code: "resource_missing", param, message: `No such ${kind}: '${value}'` });
const invalid = (message: string, param?: string, code?: string) =>
  new StripeApiError(400, { type: "invalid_request_error", message, ...(param ? { param } : {}), ...(code ? { code } : {}) });

/** What the stand-in keeps: Stripe's objects by id, and the events they caused, in order. */
export class StripeState {
  readonly objects = new Map<string, StripeObject>();
  /** How each payment method behaves: the test card it came from. */
  readonly cards = new Map<string, TestCard>();
  /** The test payment method each confirmation token stands for. */
  private readonly tokenSources = new Map<string, string>();
  /** Called for each event Stripe would send, in Stripe's order. */
  onEvent: (type: string, object: StripeObject) => void = () => undefined;

  get(kind: string, objectId: string, param: string): StripeObject {
    const found = this.objects.get(objectId);
    if (!found || found.object !== kind) throw missing(kind.replace("_", " "), objectId, param);
    return found;
  }

  put<T extends StripeObject>(object: T): T {
    this.objects.set(object.id, object);
    return object;
  }

  all(kind: string): StripeObject[] {
    return [...this.objects.values()].filter((object) => object.object === kind);
  }

  emit(type: string, object: StripeObject): void {
    this.onEvent(type, structuredClone(object));
  }

  // --- customers -------------------------------------------------------------------------------

  createCustomer(params: FormObject): StripeObject {
    return this.put({
      id: id("cus"),
      object: "customer",
      created: now(),
      email: text(params.email) ?? null,
      name: text(params.name) ?? null,
      metadata: metadataOf(params.metadata),
      livemode: false,
      invoice_settings: { default_payment_method: null, custom_fields: null, footer: null, rendering_options: null },
    });
  }

  // --- payment methods ---------------------------------------------------------------------------

  /** A new payment method made from a test card (what confirming a token or a `pm_card_…` id does). */
  paymentMethodFrom(source: string, param: string): StripeObject {
    const card = TEST_CARDS[source];
    if (!card) {
      const existing = this.get("payment_method", source, param);
      return existing;
    }
    const method = this.put({
      id: id("pm"),
      object: "payment_method",
      created: now(),
      type: "card",
      customer: null,
      livemode: false,
      metadata: {},
      billing_details: { address: null, email: null, name: null, phone: null },
      card: {
        brand: card.brand,
        last4: card.last4,
        exp_month: 12,
        exp_year: new Date().getUTCFullYear() + 3,
        country: "US",
        funding: "credit",
      },
    });
    this.cards.set(method.id, card);
    return method;
  }

  attach(method: StripeObject, customer: string): void {
    if (method.customer && method.customer !== customer)
      throw invalid("The payment method you provided has already been attached to a customer.", "payment_method");
    method.customer = customer;
  }

  detach(method: StripeObject): StripeObject {
    if (!method.customer) throw invalid(`The payment method ${method.id} is not attached to a customer.`, "payment_method");
    method.customer = null;
    this.emit("payment_method.detached", method);
    return method;
  }

  createConfirmationToken(params: FormObject): StripeObject {
    const source = text(params.payment_method);
    if (!source) throw invalid("Missing required param: payment_method.", "payment_method");
    const card = TEST_CARDS[source] ?? this.cards.get(source);
    if (!card) throw missing("payment_method", source, "payment_method");
    const token = this.put({
      id: id("ctoken"),
      object: "confirmation_token",
      created: now(),
      expires_at: now() + 12 * 3600,
      livemode: false,
      payment_method_preview: {
        type: "card",
        card: {
          brand: card.brand,
          last4: card.last4,
          exp_month: 12,
          exp_year: new Date().getUTCFullYear() + 3,
          funding: "credit",
          country: "US",
        },
        billing_details: { address: null, email: null, name: null, phone: null },
      },
      setup_future_usage: text(params.setup_future_usage) ?? null,
    });
    this.tokenSources.set(token.id, source);
    return token;
  }

  /** The payment method a confirm uses: from its confirmation token, or the one given. */
  private methodForConfirm(params: FormObject): StripeObject {
    const token = text(params.confirmation_token);
    if (token) {
      this.get("confirmation_token", token, "confirmation_token");
      return this.paymentMethodFrom(this.tokenSources.get(token)!, "confirmation_token");
    }
    const method = text(params.payment_method);
    if (!method) throw invalid("You cannot confirm this PaymentIntent because it's missing a payment method.", "payment_method");
    return this.paymentMethodFrom(method, "payment_method");
  }

  // --- payment intents ---------------------------------------------------------------------------

  createPaymentIntent(params: FormObject): StripeObject {
    const customer = text(params.customer);
    if (customer) this.get("customer", customer, "customer");
    const intent: StripeObject = this.put({
      id: id("pi"),
      object: "payment_intent",
      created: now(),
      amount: Number(params.amount),
      currency: text(params.currency),
      customer: customer ?? null,
      metadata: metadataOf(params.metadata),
      status: "requires_payment_method",
      capture_method: "automatic",
      confirmation_method: "automatic",
      payment_method_types: ["card"],
      payment_method: null,
      latest_charge: null,
      last_payment_error: null,
      next_action: null,
      setup_future_usage: text(params.setup_future_usage) ?? null,
      livemode: false,
      amount_received: 0,
      description: text(params.description) ?? null,
    });
    intent.client_secret = secretOf(intent.id);
    return flag(params.confirm) ? this.confirmPaymentIntent(intent, params) : intent;
  }

  confirmPaymentIntent(intent: StripeObject, params: FormObject): StripeObject {
    if (intent.status !== "requires_payment_method" && intent.status !== "requires_confirmation")
      throw invalid(
        `This PaymentIntent's status is ${String(intent.status)}, it cannot be confirmed.`,
        undefined,
        "payment_intent_unexpected_state",
      );
    const method = this.methodForConfirm(params);
    const customer = intent.customer as string | null;
    const offSession = flag(params.off_session);
    // Stripe's own words for a saved method it no longer accepts: detached (or never attached), or another customer's.
    if (offSession && customer && method.customer === null)
      throw invalid(
        "The provided PaymentMethod was previously used with a PaymentIntent without Customer attachment, shared with a connected account without Customer attachment, or was detached from a Customer. It may not be used again. To use a PaymentMethod multiple times, you must attach it to a Customer first.",
        "payment_method",
      );
    if (offSession && customer && method.customer !== customer)
      throw invalid(`The provided PaymentMethod ${method.id} does not belong to the Customer ${customer}.`, "payment_method");
    intent.payment_method = method.id;
    if (intent.setup_future_usage && customer) this.attach(method, customer);
    const card = this.cards.get(method.id) ?? TEST_CARDS.pm_card_visa!;
    if (card.authentication && (!offSession || card.authentication.offSession)) {
      if (offSession)
        return this.declinePayment(intent, method, {
          code: "authentication_required",
          declineCode: "authentication_required",
          message: "Your card was declined. This transaction requires authentication.",
        });
      intent.status = "requires_action";
      intent.next_action = { type: "use_stripe_sdk", use_stripe_sdk: {} };
      this.emit("payment_intent.requires_action", intent);
      return intent;
    }
    if (card.decline) return this.declinePayment(intent, method, card.decline);
    return this.succeedPayment(intent);
  }

  /** Stripe cancels an intent that has not succeeded (nor been canceled); it then never completes. */
  private chargeOf(intent: StripeObject, status: "succeeded" | "failed", outcome: Record<string, unknown>): StripeObject {
    return this.put({
      id: id("ch"),
      object: "charge",
      created: now(),
      amount: intent.amount,
      amount_captured: status === "succeeded" ? intent.amount : 0,
      amount_refunded: 0,
      currency: intent.currency,
      customer: intent.customer,
      payment_intent: intent.id,
      payment_method: intent.payment_method,
      metadata: intent.metadata,
      status,
      paid: status === "succeeded",
      captured: status === "succeeded",
      refunded: false,
      disputed: false,
      livemode: false,
      billing_details: { address: null, email: null, name: null, phone: null },
      outcome: {
        type: status === "succeeded" ? "authorized" : "issuer_declined",
        network_status: "approved_by_network",
        risk_level: "normal",
        seller_message: "Payment complete.",
        ...outcome,
      },
      failure_code: null,
      failure_message: null,
    });
  }

  succeedPayment(intent: StripeObject): StripeObject {
    const charge = this.chargeOf(intent, "succeeded", {});
    Object.assign(intent, {
      status: "succeeded",
      latest_charge: charge.id,
      amount_received: intent.amount,
      next_action: null,
      last_payment_error: null,
    });
    this.emit("charge.succeeded", charge);
    this.emit("payment_intent.succeeded", intent);
    if (this.cards.get(String(intent.payment_method))?.disputes) this.openDispute(charge);
    return intent;
  }

  /** A card error: the charge fails, the intent wants another method, the SDK gets a 402 naming both. */
  private declinePayment(
    intent: StripeObject,
    method: StripeObject,
    decline: { code: string; declineCode: string; message: string },
  ): never {
    const charge = this.chargeOf(intent, "failed", {
      type: "issuer_declined",
      network_status: "declined_by_network",
      reason: decline.declineCode,
      seller_message: "The bank did not return any further details with this decline.",
    });
    Object.assign(charge, { failure_code: decline.code, failure_message: decline.message });
    const error = {
      type: "card_error",
      code: decline.code,
      decline_code: decline.declineCode,
      message: decline.message,
      charge: charge.id,
      payment_method: method,
    };
    Object.assign(intent, { status: "requires_payment_method", latest_charge: charge.id, last_payment_error: error, next_action: null });
    this.emit("charge.failed", charge);
    this.emit("payment_intent.payment_failed", intent);
    throw new StripeApiError(402, { ...error, payment_intent: intent });
  }

  /** Only an intent that has not succeeded (nor been canceled already) can be canceled; Stripe says so otherwise. */
  cancelPaymentIntent(intent: StripeObject, params: FormObject): StripeObject {
    const cancelable = ["requires_payment_method", "requires_capture", "requires_confirmation", "requires_action", "processing"];
    if (!cancelable.includes(String(intent.status)))
      throw invalid(
        `You cannot cancel this PaymentIntent because it has a status of ${String(intent.status)}. Only a PaymentIntent with one of the following statuses may be canceled: ${cancelable.join(", ")}.`,
        undefined,
        "payment_intent_unexpected_state",
      );
    Object.assign(intent, {
      status: "canceled",
      canceled_at: now(),
      cancellation_reason: text(params.cancellation_reason) ?? null,
      next_action: null,
    });
    this.emit("payment_intent.canceled", intent);
    return intent;
  }

  /** Not Stripe's API: a saved card starts behaving as another test card does (reported lost, expired since it was saved). */
  changeCard(methodId: string, becomes: string): void {
    const card = TEST_CARDS[becomes];
    if (!card) throw new Error(`no test card ${becomes}`);
    this.cards.set(this.get("payment_method", methodId, "payment_method").id, card);
  }

  /** Not Stripe's API: the buyer passes (or fails) the 3-D Secure challenge of an intent waiting for it. */
  authenticate(objectId: string, result: "succeeded" | "failed"): StripeObject {
    const intent = this.objects.get(objectId);
    if (!intent || intent.status !== "requires_action") throw invalid(`No intent waiting for authentication: ${objectId}`);
    if (result === "failed") {
      const error = {
        type: "invalid_request_error",
        code: "payment_intent_authentication_failure",
        message: "We are unable to authenticate your payment method. Please choose a different payment method and try again.",
      };
      const failed = intent.object === "setup_intent" ? "last_setup_error" : "last_payment_error";
      Object.assign(intent, { status: "requires_payment_method", next_action: null, [failed]: error });
      this.emit(intent.object === "setup_intent" ? "setup_intent.setup_failed" : "payment_intent.payment_failed", intent);
      return intent;
    }
    if (intent.object === "setup_intent") return this.succeedSetup(intent);
    return this.succeedPayment(intent);
  }

  // --- setup intents -----------------------------------------------------------------------------

  createSetupIntent(params: FormObject): StripeObject {
    const customer = text(params.customer);
    if (customer) this.get("customer", customer, "customer");
    const intent: StripeObject = this.put({
      id: id("seti"),
      object: "setup_intent",
      created: now(),
      customer: customer ?? null,
      metadata: metadataOf(params.metadata),
      status: "requires_payment_method",
      usage: text(params.usage) ?? "off_session",
      payment_method_types: ["card"],
      payment_method: null,
      last_setup_error: null,
      next_action: null,
      livemode: false,
    });
    intent.client_secret = secretOf(intent.id);
    return flag(params.confirm) ? this.confirmSetupIntent(intent, params) : intent;
  }

  confirmSetupIntent(intent: StripeObject, params: FormObject): StripeObject {
    const method = this.methodForConfirm(params);
    intent.payment_method = method.id;
    const card = this.cards.get(method.id) ?? TEST_CARDS.pm_card_visa!;
    if (card.decline?.declinesSetup) {
      const error = {
        type: "card_error",
        code: card.decline.code,
        decline_code: card.decline.declineCode,
        message: card.decline.message,
        payment_method: method,
      };
      Object.assign(intent, { status: "requires_payment_method", last_setup_error: error });
      this.emit("setup_intent.setup_failed", intent);
      throw new StripeApiError(402, { ...error, setup_intent: intent });
    }
    if (card.authentication) {
      Object.assign(intent, { status: "requires_action", next_action: { type: "use_stripe_sdk", use_stripe_sdk: {} } });
      return intent;
    }
    return this.succeedSetup(intent);
  }

  private succeedSetup(intent: StripeObject): StripeObject {
    const method = this.get("payment_method", String(intent.payment_method), "payment_method");
    if (typeof intent.customer === "string") this.attach(method, intent.customer);
    Object.assign(intent, { status: "succeeded", next_action: null, last_setup_error: null });
    this.emit("setup_intent.succeeded", intent);
    return intent;
  }

  // --- refunds and disputes ----------------------------------------------------------------------

  createRefund(params: FormObject): StripeObject {
    const intentId = text(params.payment_intent);
    const chargeId = intentId ? String(this.get("payment_intent", intentId, "payment_intent").latest_charge) : text(params.charge);
    if (!chargeId) throw invalid("One of the following params should be provided for this request: payment_intent or charge.");
    const charge = this.get("charge", chargeId, "charge");
    if (charge.status !== "succeeded") throw invalid(`Charge ${charge.id} has not succeeded.`, "charge");
    if (charge.disputed) throw invalid(`Charge ${charge.id} has been charged back; cannot issue a refund.`, "charge", "charge_disputed");
    const left = Number(charge.amount) - Number(charge.amount_refunded);
    if (left === 0) throw invalid(`Charge ${charge.id} has already been refunded.`, "charge", "charge_already_refunded");
    const amount = params.amount === undefined ? left : Number(params.amount);
    if (amount > left)
      throw invalid(
        `Refund amount ($${(amount / 100).toFixed(2)}) is greater than charge amount ($${(left / 100).toFixed(2)})`,
        "amount",
        "amount_too_large",
      );
    const fails = this.cards.get(String(charge.payment_method))?.refundFails === true;
    const refund = this.put({
      id: id("re"),
      object: "refund",
      created: now(),
      amount,
      currency: charge.currency,
      charge: charge.id,
      payment_intent: charge.payment_intent,
      metadata: metadataOf(params.metadata),
      reason: text(params.reason) ?? null,
      status: fails ? "pending" : "succeeded",
    });
    charge.amount_refunded = Number(charge.amount_refunded) + amount;
    charge.refunded = charge.amount_refunded === charge.amount;
    this.emit("refund.created", refund);
    return refund;
  }

  /** Not Stripe's API: a pending refund fails (the bank refused it); the charge gets the money back. */
  failRefund(refundId: string): void {
    const refund = this.get("refund", refundId, "refund");
    const charge = this.get("charge", String(refund.charge), "charge");
    Object.assign(refund, { status: "failed", failure_reason: "expired_or_canceled_card" });
    charge.amount_refunded = Number(charge.amount_refunded) - Number(refund.amount);
    charge.refunded = false;
    this.emit("refund.updated", refund);
    this.emit("refund.failed", refund);
  }

  openDispute(charge: StripeObject): StripeObject {
    charge.disputed = true;
    const dispute = this.put({
      id: id("du"),
      object: "dispute",
      created: now(),
      amount: charge.amount,
      currency: charge.currency,
      charge: charge.id,
      payment_intent: charge.payment_intent,
      status: "needs_response",
      reason: "fraudulent",
      is_charge_refundable: false,
      livemode: false,
      metadata: {},
      balance_transactions: [],
      evidence_details: { due_by: now() + 7 * 86_400, has_evidence: false, past_due: false, submission_count: 0 },
    });
    this.emit("charge.dispute.created", dispute);
    return dispute;
  }

  closeDispute(dispute: StripeObject, status: "won" | "lost"): StripeObject {
    if (dispute.status === "won" || dispute.status === "lost") throw invalid("This dispute is already closed.", "dispute");
    dispute.status = status;
    this.emit("charge.dispute.closed", dispute);
    return dispute;
  }
}
