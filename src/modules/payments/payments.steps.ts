import type { Executor } from "../../db/database.ts";
import {
  attemptKey,
  countFailedPayments,
  countPayments,
  hasPaymentOfReference,
  insertPayment,
  latestPayment,
  nextAttemptKey,
  orderAttempts,
  pendingPayments,
  settlePendingPayment,
  tryLockOrderPayment,
} from "./payments.repository.ts";
import { countPaymentMethods, findPaymentMethod, savePaymentMethod } from "./payment-methods.repository.ts";
import type { PaymentRow, PaymentTrigger } from "./payments.table.ts";

// The payment operations other modules and flows run inside their own transaction.

export {
  attemptKey,
  countFailedPayments,
  countPayments,
  hasPaymentOfReference,
  findPaymentMethod,
  latestPayment,
  nextAttemptKey,
  orderAttempts,
  pendingPayments,
  savePaymentMethod,
  settlePendingPayment,
  tryLockOrderPayment,
};

/** Whether the customer has a live (not deleted) payment method. */
export const hasPaymentMethod = async (db: Executor, customerId: string): Promise<boolean> =>
  (await countPaymentMethods(db, customerId)) > 0;

/** One charge of an order, whatever its outcome. */
interface PaymentAttempt {
  organizationId: string;
  customerId: string;
  orderId: string;
  methodId: string | null;
  trigger: PaymentTrigger;
  amount: number;
  currency: string;
  now: Date;
}

/** How an attempt stands: the processor took the money, refused it, or waits for the customer (3-D Secure). */
type AttemptOutcome = { reference: string } | { declineMessage: string; declineReason: string | null } | { pendingReference: string };

const insertAttempt = (db: Executor, input: PaymentAttempt, outcome: AttemptOutcome) =>
  insertPayment(db, {
    created_at: input.now,
    modified_at: null,
    organization_id: input.organizationId,
    customer_id: input.customerId,
    order_id: input.orderId,
    payment_method_id: input.methodId,
    status: "reference" in outcome ? "succeeded" : "pendingReference" in outcome ? "pending" : "failed",
    trigger: input.trigger,
    amount: input.amount,
    currency: input.currency,
    processor_reference: "reference" in outcome ? outcome.reference : "pendingReference" in outcome ? outcome.pendingReference : null,
    decline_message: "declineMessage" in outcome ? outcome.declineMessage : null,
    decline_reason: "declineMessage" in outcome ? outcome.declineReason : null,
  });

/** Records a payment the processor took for an order: succeeded, under the processor's charge reference. */
export const recordPayment = (db: Executor, input: PaymentAttempt & { reference: string }): Promise<PaymentRow> =>
  insertAttempt(db, input, { reference: input.reference });

/** Records a charge the processor (or the method's setup) refused, with the decline message and code. */
export const recordDeclinedPayment = (
  db: Executor,
  input: PaymentAttempt & { declineMessage: string; declineReason: string | null },
): Promise<PaymentRow> => insertAttempt(db, input, { declineMessage: input.declineMessage, declineReason: input.declineReason });

/** Records a charge waiting for the customer (3-D Secure) under the processor's reference: settled later by its outcome. */
export const recordPendingPayment = (db: Executor, input: PaymentAttempt & { reference: string }): Promise<PaymentRow> =>
  insertAttempt(db, input, { pendingReference: input.reference });
export { isUnrecoverableDecline } from "./decline-codes.ts";
export { keepSavedMethod, setUpPaymentMethod } from "./payment-method-setup.ts";
export {
  countPaymentMethods,
  deletePaymentMethod,
  listPaymentMethods,
  liveMethodsByReference,
  refreshPaymentMethods,
} from "./payment-methods.repository.ts";

// What an order's documents read of its payments.
export { paidAtOf } from "./payments.repository.ts";

// What a processor's dispute reads of the payment it names (disputes.steps.ts).
export { succeededPaymentByReference } from "./payments.repository.ts";
