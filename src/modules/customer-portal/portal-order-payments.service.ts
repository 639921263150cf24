import type { Deps } from "../../context.ts";
import type { Executor } from "../../db/database.ts";
import { ResourceNotFound, valueError } from "../../http/errors.ts";
import { findOrder, type OrderVisibility } from "../orders/orders.repository.ts";
import type { OrderRow } from "../orders/orders.table.ts";
import { setUpPaymentMethod } from "../payments/payment-method-setup.ts";
import type { PaymentProcessor } from "../../adapters/payment-processors/payment-processor.ts";
import { countPayments, findPaymentMethod, latestPayment, nextAttemptKey, tryLockOrderPayment } from "../payments/payments.repository.ts";
import type { PaymentMethodRow } from "../payments/payments.table.ts";
import { dunningOrdersOfCustomer, moveSubscriptionsToMethod } from "../subscriptions/subscription-payment-methods.repository.ts";
import type { SubscriptionRenewals } from "../../flows/renew-subscriptions.ts";
import type { CustomerOrderConfirmPayment, CustomerOrderPaymentConfirmation, CustomerOrderPaymentStatus } from "./portal-orders.schemas.ts";
import {
  ManualRetryLimitExceeded,
  OrderNotEligibleForRetry,
  PaymentAlreadyInProgress,
  PaymentRetryValidationError,
} from "./portal-payments.errors.ts";
import type { portalCustomerOf } from "./portal-session.ts";

type PortalCustomer = ReturnType<typeof portalCustomerOf>;

/** The anchor's cap on a customer's own retries of one order, whatever their outcome. */
const MANUAL_RETRY_LIMIT = 5;

/** A subscription order whose dunning is still running: the only kind a customer may retry. */
const inDunning = (order: OrderRow): boolean =>
  order.status === "pending" && order.subscription_id !== null && order.next_payment_attempt_at !== null;

const visibleTo = (session: PortalCustomer): OrderVisibility => ({ allowed: [session.organizationId], customerId: session.customerId });

/**
 * A customer paying an order dunning is chasing, themselves: the portal's payment status and
 * retry, and the retry a new default method triggers. Each attempt is a `retry_customer` payment
 * charged by the renewals under the subscription's and the order's locks (a success settles the
 * order as a dunning retry would; a failure is not counted toward dunning), while the request holds
 * the order's payment lock, so a second retry of the same order is refused rather than queued.
 */
export function createPortalOrderPayments(deps: Deps, processor: PaymentProcessor, renewals: SubscriptionRenewals) {
  const { db } = deps;

  /**
   * Charges the order on `method` if it is still in dunning once locked; the subscription keeps the
   * method that paid. Null when another request holds the order or dunning ended meanwhile.
   */
  async function retryLocked(
    trx: Executor,
    orderId: string,
    method: (locked: OrderRow) => Promise<PaymentMethodRow | { refused: string }>,
    refuse: { busy: () => Error; ended: () => Error } | null,
  ) {
    if (!(await tryLockOrderPayment(trx, orderId))) {
      if (refuse) throw refuse.busy();
      return null;
    }
    const locked = await renewals.lockForCharge(trx, orderId);
    // Dunning may have settled or ended the order while this request waited for the locks.
    if (!locked || !inDunning(locked.order)) {
      if (refuse) throw refuse.ended();
      return null;
    }
    const chosen = await method(locked.order);
    const outcome = await renewals.chargeLocked(trx, locked, chosen, "retry_customer");
    if (outcome.status === "succeeded" && "id" in chosen)
      await moveSubscriptionsToMethod(trx, { ids: [locked.row.id] }, chosen.id, deps.now());
    return outcome;
  }

  return {
    /** The latest attempt's status and decline message, or `no_payment` before any attempt. */
    async status(orderId: string, session: PortalCustomer): Promise<CustomerOrderPaymentStatus> {
      const order = await findOrder(db, orderId, visibleTo(session));
      if (!order) throw new ResourceNotFound();
      const payment = await latestPayment(db, order.id);
      return payment ? { status: payment.status, error: payment.decline_message } : { status: "no_payment", error: null };
    },

    /**
     * The customer's retry with a saved method or a new card, after the anchor's checks in its
     * order. A refusal is an answer (`failed` with the issuer's message), not an HTTP error; the
     * sandbox never asks for a further step.
     */
    async confirm(orderId: string, input: CustomerOrderConfirmPayment, session: PortalCustomer): Promise<CustomerOrderPaymentConfirmation> {
      const token = input.confirmation_token_id ?? null;
      const methodId = input.payment_method_id ?? null;
      if ((token === null) === (methodId === null)) {
        throw valueError(["body"], "Either confirmation_token_id or payment_method_id must be provided, not both.", input);
      }
      const order = await findOrder(db, orderId, visibleTo(session));
      if (!order) throw new ResourceNotFound();
      if (!inDunning(order)) throw new OrderNotEligibleForRetry(order.id);
      const outcome = await db.transaction().execute((trx) =>
        retryLocked(
          trx,
          order.id,
          async () => {
            if ((await countPayments(trx, order.id, { triggers: ["retry_customer"] })) >= MANUAL_RETRY_LIMIT) {
              throw new ManualRetryLimitExceeded(order.id);
            }
            if (methodId !== null) {
              const saved = await findPaymentMethod(trx, methodId, session.customerId);
              if (!saved) throw new PaymentRetryValidationError("Payment method does not belong to customer");
              return saved;
            }
            const setup = await setUpPaymentMethod(trx, processor, {
              organizationId: session.organizationId,
              customerId: session.customerId,
              confirmationToken: token!,
              attemptId: await nextAttemptKey(trx, order.id),
              now: deps.now(),
            });
            return "refused" in setup ? setup : setup.method;
          },
          { busy: () => new PaymentAlreadyInProgress(order.id), ended: () => new OrderNotEligibleForRetry(order.id) },
        ),
      );
      return outcome?.status === "succeeded"
        ? { status: "succeeded", client_secret: null, error: null }
        : { status: "failed", client_secret: null, error: outcome?.message ?? null };
    },

    /**
     * Retries now, on `method`, every order of the customer still in dunning (a new default method);
     * an order another request is paying is left to it.
     */
    async retryDunningOrders(customerId: string, method: PaymentMethodRow): Promise<void> {
      // One at a time, each in its own transaction: each is its own attempt with its own outcome.
      for (const { id } of await dunningOrdersOfCustomer(db, customerId)) {
        await db.transaction().execute((trx) => retryLocked(trx, id, async () => method, null));
      }
    },
  };
}
export type PortalOrderPayments = ReturnType<typeof createPortalOrderPayments>;
