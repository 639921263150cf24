import type Stripe from "stripe";
import type { Executor } from "../../db/database.ts";
import type { EmailConfig } from "../../email-config.ts";
import type { ProcessorRefundUpdate } from "../../adapters/payment-processors/payment-processor.ts";
import { refundUpdateOf } from "../../adapters/payment-processors/stripe-events.ts";
import { savedMethodOf } from "../../adapters/payment-processors/stripe-outcomes.ts";
import { refreshPaymentMethods } from "../payments/payments.steps.ts";
import type { PaymentTrigger } from "../payments/payments.table.ts";
import { recordProcessorDispute, type ProcessorDispute } from "../disputes/disputes.steps.ts";
import type { DisputeStatus } from "../disputes/disputes.table.ts";

/** The Stripe events this server acts on, each with its handler (notes: the hosted service's list). */
export type HandledStripeEvent =
  | "charge.succeeded"
  | "charge.failed"
  | "payment_intent.succeeded"
  | "payment_intent.payment_failed"
  | "setup_intent.succeeded"
  | "setup_intent.setup_failed"
  | "refund.created"
  | "refund.updated"
  | "refund.failed"
  | "payment_method.detached"
  | "payment_method.automatically_updated"
  | "charge.dispute.created"
  | "charge.dispute.updated"
  | "charge.dispute.closed";

type StripeEventOf<T extends string> = Extract<Stripe.Event, { type: T }>;

/**
 * Acts on one event inside the transaction that marks it handled; `now` is the application's clock.
 * Throws `ProcessorEventTooEarly` when the row it concerns is not committed yet (the job retries).
 */
export type StripeEventHandler<T extends string> = (trx: Executor, event: StripeEventOf<T>, now: Date) => Promise<void>;

/** The dispatch table: a handler for every handled type. */
export type StripeEventHandlers = { [T in HandledStripeEvent]: StripeEventHandler<T> };

/** The handler of an event's type, or undefined when this server does not act on it. */
export function handlerOf(handlers: StripeEventHandlers, type: string): StripeEventHandler<string> | undefined {
  if (!Object.hasOwn(handlers, type)) return undefined;
  // The table is keyed by the type each handler takes, so the event read under `type` is that handler's.
  return handlers[type as HandledStripeEvent] as StripeEventHandler<string> | undefined;
}

/**
 * The flows the handlers call, handed in by the composition root (features never import flows).
 * The checkout, payment and dispute flows join here as they take their events.
 */
export interface ProcessorEventFlows {
  /** A refund's later outcome: settles a pending refund, or takes a succeeded one that failed off the order. */
  settleRefund(trx: Executor, update: ProcessorRefundUpdate, now: Date): Promise<void>;
  /** Deletes the saved methods under the handle the processor detached. */
  forgetDetachedMethod(trx: Executor, reference: string, now: Date): Promise<void>;
  /**
   * A checkout's intent moved (paid, set up, or failed): the session is settled from the
   * processor's answer about that intent, in transactions of its own (it asks the processor), a
   * no-op when the confirm request or the recovery job settled it first.
   */
  settleCheckout(checkoutId: string, intentReference: string): Promise<void>;
  /**
   * An order's intent moved: a customer's retry that waited for 3-D Secure is settled from the
   * processor's answer; an off-session charge that succeeded collects the order should a crash
   * have left it pending (idempotent per attempt).
   */
  settleOrderPayment(orderId: string, event: { reference: string; trigger: PaymentTrigger; succeeded: boolean }): Promise<void>;
}

const PAYMENT_TRIGGERS: readonly PaymentTrigger[] = ["purchase", "subscription_cycle", "retry_dunning", "retry_customer"];

/** The charge's trigger as this server wrote it in the intent's metadata (`payment_trigger`). */
const triggerOf = (metadata: Stripe.Metadata | null): PaymentTrigger =>
  PAYMENT_TRIGGERS.find((trigger) => trigger === metadata?.["payment_trigger"]) ?? "subscription_cycle";

/**
 * What an intent's event settles, by the metadata this server wrote on it: its checkout, or its
 * order. Intents made elsewhere carry neither and change nothing here.
 */
async function settleIntent(
  flows: ProcessorEventFlows,
  intent: { id: string; metadata: Stripe.Metadata | null },
  succeeded: boolean,
): Promise<void> {
  const checkoutId = intent.metadata?.["checkout_id"];
  const orderId = intent.metadata?.["order_id"];
  if (checkoutId) await flows.settleCheckout(checkoutId, intent.id);
  else if (orderId) await flows.settleOrderPayment(orderId, { reference: intent.id, trigger: triggerOf(intent.metadata), succeeded });
}

/** Stripe's dispute statuses as the interface's (the hosted service's map; `warning_*` are early fraud warnings). */
const DISPUTE_STATUSES: Record<string, DisputeStatus> = {
  warning_needs_response: "needs_response",
  needs_response: "needs_response",
  warning_under_review: "under_review",
  under_review: "under_review",
  warning_closed: "prevented",
  prevented: "prevented",
  won: "won",
  lost: "lost",
};

/**
 * A dispute event as the disputes module records it, on the payment of the dispute's intent (this
 * server's payments keep the PaymentIntent's id); the event's own instant orders its states.
 */
function processorDisputeOf(event: { created: number; data: { object: Stripe.Dispute } }): ProcessorDispute | null {
  const dispute = event.data.object;
  const intent = typeof dispute.payment_intent === "string" ? dispute.payment_intent : dispute.payment_intent?.id;
  const status = DISPUTE_STATUSES[dispute.status];
  if (!intent || !status) return null;
  return {
    paymentReference: intent,
    processorDisputeId: dispute.id,
    status,
    amount: dispute.amount,
    currency: dispute.currency,
    reason: dispute.reason,
    evidenceDueBy: dispute.evidence_details?.due_by ? new Date(dispute.evidence_details.due_by * 1000) : null,
    processorEventCreatedAt: new Date(event.created * 1000),
  };
}

/** A charge's intent: charges of this server's intents always have one. */
const intentOfCharge = (charge: Stripe.Charge) => {
  const reference = typeof charge.payment_intent === "string" ? charge.payment_intent : charge.payment_intent?.id;
  return reference ? { id: reference, metadata: charge.metadata } : null;
};

/** The dispatch table of the handled events, built on the flows (the hosted service acts on each event's embedded object). */
export function buildStripeEventHandlers(flows: ProcessorEventFlows, email: EmailConfig): StripeEventHandlers {
  const refund = (trx: Executor, event: { data: { object: Stripe.Refund } }, now: Date) =>
    flows.settleRefund(trx, refundUpdateOf(event.data.object), now);
  const charge = (succeeded: boolean) => async (_trx: Executor, event: { data: { object: Stripe.Charge } }) => {
    const intent = intentOfCharge(event.data.object);
    if (intent) await settleIntent(flows, intent, succeeded);
  };
  const intent = (succeeded: boolean) => (_trx: Executor, event: { data: { object: Stripe.PaymentIntent | Stripe.SetupIntent } }) =>
    settleIntent(flows, event.data.object, succeeded);
  const dispute = async (trx: Executor, event: { created: number; data: { object: Stripe.Dispute } }, now: Date) => {
    const reported = processorDisputeOf(event);
    if (reported) await recordProcessorDispute(trx, email, reported, now);
  };
  return {
    "charge.dispute.created": dispute,
    "charge.dispute.updated": dispute,
    "charge.dispute.closed": dispute,
    // Each of a payment's two events settles it; the second finds it settled.
    "charge.succeeded": charge(true),
    "charge.failed": charge(false),
    "payment_intent.succeeded": intent(true),
    "payment_intent.payment_failed": intent(false),
    "setup_intent.succeeded": intent(true),
    "setup_intent.setup_failed": intent(false),
    "refund.created": refund,
    "refund.updated": refund,
    "refund.failed": refund,
    "payment_method.detached": (trx, event, now) => flows.forgetDetachedMethod(trx, event.data.object.id, now),
    "payment_method.automatically_updated": async (trx, event, now) => {
      const method = savedMethodOf(event.data.object, null);
      if (method) await refreshPaymentMethods(trx, method, now);
    },
  };
}
