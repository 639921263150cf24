import type { Executor } from "../../db/database.ts";
import { recordWebhookEvent } from "../../jobs/webhook-outbox.ts";
import { toCustomer } from "../customers/customers.mapper.ts";
import { updateCustomer, type findCustomerForUpdate } from "../customers/customers.steps.ts";
import { deletePaymentMethod, findPaymentMethod, listPaymentMethods } from "../payments/payments.steps.ts";
import type { PaymentMethodRow } from "../payments/payments.table.ts";
import { moveSubscriptionsToMethod, subscriptionsNeedingMethod } from "./subscription-payment-methods.repository.ts";

/** A customer read under its row lock: changes to its methods and default are made one at a time. */
export type LockedCustomer = NonNullable<Awaited<ReturnType<typeof findCustomerForUpdate>>>;

/** The customer's default method set (or cleared), with its `customer.updated`. */
export async function changeDefaultMethod(trx: Executor, customer: LockedCustomer, methodId: string | null, now: Date): Promise<void> {
  const updated = await updateCustomer(trx, customer.id, { default_payment_method_id: methodId, modified_at: now });
  await recordWebhookEvent(trx, { organizationId: customer.organization_id, type: "customer.updated", data: toCustomer(updated), now });
}

/**
 * Deletes a method of the locked customer. Subscriptions that still need one move to the default,
 * or else the newest other method; a deleted default is replaced the same way, so renewals never
 * point at a deleted method. With no other method left for subscriptions that need one, `refuse`
 * keeps it and answers false (the customer's own deletion: the hosted service's 400), and `release`
 * deletes it all the same, the subscriptions left without a method (the processor detached it: it
 * cannot be charged any more, so their next charge fails into dunning, which asks for a new card).
 */
export async function retirePaymentMethod(
  trx: Executor,
  customer: LockedCustomer,
  method: PaymentMethodRow,
  now: Date,
  whenLast: "refuse" | "release",
): Promise<boolean> {
  const isDefault = customer.default_payment_method_id === method.id;
  const replacement =
    (!isDefault && customer.default_payment_method_id !== null
      ? await findPaymentMethod(trx, customer.default_payment_method_id, customer.id)
      : undefined) ?? (await listPaymentMethods(trx, customer.id, { offset: 0, limit: 1, exceptId: method.id }))[0];
  if (!replacement && whenLast === "refuse" && (await subscriptionsNeedingMethod(trx, customer.id, method.id, isDefault)).length > 0)
    return false;
  await moveSubscriptionsToMethod(trx, { from: method.id }, replacement?.id ?? null, now);
  if (isDefault) await changeDefaultMethod(trx, customer, replacement?.id ?? null, now);
  await deletePaymentMethod(trx, method.id, now);
  return true;
}
