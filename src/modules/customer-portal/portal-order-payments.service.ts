import type { Deps } from "../../context.ts";
import type { Executor } from "../../db/database.ts";
import { ResourceNotFound, valueError } from "../../http/errors.ts";
import { ProcessorUnreachable } from "../../adapters/payment-processors/payment-processor.ts";
import type { CustomerChargeOutcome, NewCard } from "../../flows/collect-customer-payment.ts";
import { inDunning } from "../../flows/collect-subscription-payment.ts";
import type { SubscriptionRenewals } from "../../flows/renew-subscriptions.ts";
import { findOrder, type OrderVisibility } from "../orders/orders.steps.ts";
import { countPayments, findPaymentMethod, latestPayment } from "../payments/payments.steps.ts";
import type { PaymentMethodRow } from "../payments/payments.table.ts";
import { dunningOrdersOfCustomer } from "../subscriptions/subscriptions.steps.ts";
import type { CustomerOrderConfirmPayment, CustomerOrderPaymentConfirmation, CustomerOrderPaymentStatus } from "./portal-orders.schemas.ts";
import {
  ManualRetryLimitExceeded,
  OrderNotEligibleForRetry,
  PaymentAlreadyInProgress,
  PaymentRetryValidationError,
} from "./portal-payments.errors.ts";
import { processorCustomerOfSession, type portalCustomerOf } from "./portal-session.ts";

type PortalCustomer = ReturnType<typeof portalCustomerOf>;

/** What the portal's payments run on: the dependencies and the renewals' retry. */
interface PortalPaymentsContext {
  deps: Deps;
  renewals: SubscriptionRenewals;
}

/** The hosted service's cap on a customer's own retries of one order, whatever their outcome. */
const MANUAL_RETRY_LIMIT = 5;

const visibleTo = (session: PortalCustomer): OrderVisibility => ({ allowed: [session.organizationId], customerId: session.customerId });

/** An unreachable processor leaves the attempt as stored: the status answers what is known, the next poll asks again. */
async function refreshWaiting(ctx: PortalPaymentsContext, orderId: string): Promise<void> {
  try {
    await ctx.renewals.refreshWaitingPayments(orderId);
  } catch (error) {
    if (!(error instanceof ProcessorUnreachable)) throw error;
  }
}

/**
 * The latest attempt's status and decline message, or `no_payment` before any attempt. An attempt
 * waiting for the customer's 3-D Secure step is asked about at the processor first (the page polls
 * this while the customer authenticates), so it is settled here should the processor's event be late.
 */
async function paymentStatus(ctx: PortalPaymentsContext, orderId: string, session: PortalCustomer): Promise<CustomerOrderPaymentStatus> {
  const order = await findOrder(ctx.deps.db, orderId, visibleTo(session));
  if (!order) throw new ResourceNotFound();
  if ((await latestPayment(ctx.deps.db, order.id))?.status === "pending") await refreshWaiting(ctx, order.id);
  const payment = await latestPayment(ctx.deps.db, order.id);
  return payment ? { status: payment.status, error: payment.decline_message } : { status: "no_payment", error: null };
}

/** The method the customer chose for a retry (a saved one, or a new card charged now), under the retry cap. */
async function chosenMethod(
  trx: Executor,
  orderId: string,
  choice: { token: string | null; methodId: string | null },
  session: PortalCustomer,
): Promise<PaymentMethodRow | NewCard> {
  if ((await countPayments(trx, orderId, { triggers: ["retry_customer"] })) >= MANUAL_RETRY_LIMIT) {
    throw new ManualRetryLimitExceeded(orderId);
  }
  if (choice.methodId !== null) {
    const saved = await findPaymentMethod(trx, choice.methodId, session.customerId);
    if (!saved) throw new PaymentRetryValidationError("Payment method does not belong to customer");
    return saved;
  }
  return { confirmationToken: choice.token!, customer: await processorCustomerOfSession(trx, session) };
}

/** The flow's outcome as the interface answers it; a refusal is an answer (`failed` with the issuer's message), not an HTTP error. */
const confirmation = (outcome: CustomerChargeOutcome): CustomerOrderPaymentConfirmation => ({
  status: outcome.status,
  client_secret: outcome.status === "requires_action" ? outcome.clientSecret : null,
  error: outcome.status === "failed" ? outcome.message : null,
});

/**
 * The customer's retry with a saved method or a new card, after the hosted service's checks in its
 * order: charged with the customer present, so the card may ask for 3-D Secure (`requires_action`
 * with the intent's client secret; the order is paid once the processor says the money moved).
 */
async function confirmPayment(
  ctx: PortalPaymentsContext,
  orderId: string,
  input: CustomerOrderConfirmPayment,
  session: PortalCustomer,
): Promise<CustomerOrderPaymentConfirmation> {
  const choice = { token: input.confirmation_token_id ?? null, methodId: input.payment_method_id ?? null };
  if ((choice.token === null) === (choice.methodId === null)) {
    throw valueError(["body"], "Either confirmation_token_id or payment_method_id must be provided, not both.", input);
  }
  const order = await findOrder(ctx.deps.db, orderId, visibleTo(session));
  if (!order) throw new ResourceNotFound();
  if (!inDunning(order)) throw new OrderNotEligibleForRetry(order.id);
  const outcome = await ctx.deps.db.transaction().execute((trx) =>
    ctx.renewals.retryAsCustomer(trx, order.id, () => chosenMethod(trx, order.id, choice, session), {
      busy: () => new PaymentAlreadyInProgress(order.id),
      ended: () => new OrderNotEligibleForRetry(order.id),
    }),
  );
  return confirmation(outcome);
}

/**
 * Retries now, on `method`, every order of the customer still in dunning (a new default method);
 * an order another request is paying is left to it.
 */
async function retryDunningOrders(ctx: PortalPaymentsContext, customerId: string, method: PaymentMethodRow): Promise<void> {
  // One at a time, each in its own transaction: each is its own attempt with its own outcome.
  for (const { id } of await dunningOrdersOfCustomer(ctx.deps.db, customerId)) {
    await ctx.deps.db.transaction().execute((trx) => ctx.renewals.retryOnNewDefault(trx, id, method));
  }
}

/**
 * A customer paying an order dunning is chasing, themselves: the portal's payment status and
 * retry, and the retry a new default method triggers (the charge itself is the renewals' flow,
 * src/flows/collect-subscription-payment.ts), bound to the application's context.
 */
export function createPortalOrderPayments(deps: Deps, renewals: SubscriptionRenewals) {
  const ctx: PortalPaymentsContext = { deps, renewals };
  return {
    status: (orderId: string, session: PortalCustomer) => paymentStatus(ctx, orderId, session),
    confirm: (orderId: string, input: CustomerOrderConfirmPayment, session: PortalCustomer) => confirmPayment(ctx, orderId, input, session),
    retryDunningOrders: (customerId: string, method: PaymentMethodRow) => retryDunningOrders(ctx, customerId, method),
  };
}
export type PortalOrderPayments = ReturnType<typeof createPortalOrderPayments>;
