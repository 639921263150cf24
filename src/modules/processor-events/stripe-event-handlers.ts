import type Stripe from "stripe";
import type { Executor } from "../../db/database.ts";
import type { ProcessorRefundUpdate } from "../../adapters/payment-processors/payment-processor.ts";
import { refundUpdateOf } from "../../adapters/payment-processors/stripe-events.ts";
import { savedMethodOf } from "../../adapters/payment-processors/stripe-outcomes.ts";
import { refreshPaymentMethods } from "../payments/payments.steps.ts";

/** The Stripe events this server acts on, each with its handler (notes: the hosted service's list). */
export type HandledStripeEvent =
  "refund.created" | "refund.updated" | "refund.failed" | "payment_method.detached" | "payment_method.automatically_updated";

/**
 * Subscribed by the hosted service and taken here once the checkout, payment and dispute flows hand
 * in their handlers: until an entry exists for one, it is acknowledged and not stored, like any
 * type this server does not act on. Once every one is filled, it moves into `HandledStripeEvent`.
 */
export type AwaitedStripeEvent =
  | "charge.succeeded"
  | "charge.failed"
  | "charge.pending"
  | "charge.updated"
  | "payment_intent.succeeded"
  | "payment_intent.payment_failed"
  | "setup_intent.succeeded"
  | "setup_intent.setup_failed"
  | "charge.dispute.created"
  | "charge.dispute.updated"
  | "charge.dispute.closed";

type StripeEventOf<T extends string> = Extract<Stripe.Event, { type: T }>;

/**
 * Acts on one event inside the transaction that marks it handled; `now` is the application's clock.
 * Throws `ProcessorEventTooEarly` when the row it concerns is not committed yet (the job retries).
 */
export type StripeEventHandler<T extends string> = (trx: Executor, event: StripeEventOf<T>, now: Date) => Promise<void>;

/** The dispatch table: a handler for every handled type, and for each awaited type once its flow exists. */
export type StripeEventHandlers = { [T in HandledStripeEvent]: StripeEventHandler<T> } & {
  [T in AwaitedStripeEvent]?: StripeEventHandler<T>;
};

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
}

/** The dispatch table of the handled events, built on the flows (the hosted service acts on each event's embedded object). */
export function buildStripeEventHandlers(flows: ProcessorEventFlows): StripeEventHandlers {
  const refund = (trx: Executor, event: { data: { object: Stripe.Refund } }, now: Date) =>
    flows.settleRefund(trx, refundUpdateOf(event.data.object), now);
  return {
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
