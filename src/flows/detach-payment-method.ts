import type { Executor } from "../db/database.ts";
import { findCustomerForUpdate } from "../modules/customers/customers.steps.ts";
import { deletePaymentMethod, liveMethodsByReference } from "../modules/payments/payments.steps.ts";
import { retirePaymentMethod } from "../modules/subscriptions/subscriptions.steps.ts";

/**
 * A method the processor detached (its customer removed it on the processor's side, or the card
 * was closed) can no longer be charged: every live row saved under its handle is deleted, in the
 * event's transaction under its customer's row lock, the subscriptions and the default moved to
 * another method as the portal's deletion does, or left without one when none is left.
 */
export async function forgetDetachedMethod(trx: Executor, reference: string, now: Date): Promise<void> {
  for (const method of await liveMethodsByReference(trx, reference)) {
    const customer = await findCustomerForUpdate(trx, method.customer_id, [method.organization_id]);
    if (customer) await retirePaymentMethod(trx, customer, method, now, "release");
    else await deletePaymentMethod(trx, method.id, now);
  }
}
