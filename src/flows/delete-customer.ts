import type { Deps } from "../context.ts";
import type { OrganizationScope } from "../http/auth.ts";
import { revokeCustomerBenefits } from "../modules/benefits/benefit-revocations.steps.ts";
import {
  findVisibleCustomer,
  lockCustomerIdentities,
  lockVisibleCustomer,
  retireCustomer,
  type CustomerTarget,
} from "../modules/customers/customers.steps.ts";
import { revokeCustomerSeats } from "../modules/customer-seats/customer-seats.steps.ts";
import { endSubscription, lockOpenSubscriptionsOfCustomer } from "../modules/subscriptions/subscriptions.steps.ts";

// `DELETE /v1/customers/{id}` and `…/external/{external_id}`: the customer soft-deleted with
// everything it still holds taken back, in one transaction. Its orders, invoices and refunds stay
// (a seller keeps them for tax), showing the customer as it was.

/**
 * Deletes a customer of the caller's organizations (404 otherwise): its subscriptions that have not
 * ended are revoked now (their seats with them), the seats of its one-time orders revoked, its remaining grants and their license keys revoked, its members and
 * sessions gone, its external ID and email free for a new customer, `customer.deleted` recorded.
 *
 * The locks come in the order the other writers take them, so none waits on the other in a loop: a
 * purchase's buyer identities first (as `linkBuyer`), then the subscriptions (as a renewal claims
 * and charges them, before their orders), then the customer row. A renewal holding a subscription
 * makes the deletion wait for its commit; its order, should it still wait for payment, is voided by
 * the revoke, and the charge that follows finds it void and charges nothing.
 */
async function deleteCustomer(deps: Deps, target: CustomerTarget, options: { anonymize: boolean }, allowed: OrganizationScope) {
  await deps.db.transaction().execute(async (trx) => {
    const found = await findVisibleCustomer(trx, target, allowed);
    await lockCustomerIdentities(trx, found);
    const subscriptions = await lockOpenSubscriptionsOfCustomer(trx, found.id);
    const customer = await lockVisibleCustomer(trx, { id: found.id }, allowed);
    const now = deps.now();
    // Revoked, not billed: a deleted customer is charged nothing more, not even the open period's usage.
    for (const subscription of subscriptions) await endSubscription(trx, subscription, now);
    await revokeCustomerSeats(trx, customer.id, now);
    await revokeCustomerBenefits(trx, customer.id, now);
    await retireCustomer(trx, customer, { anonymize: options.anonymize, now });
  });
}

/** The flow bound to the application's dependencies: the two delete routes. */
export const customerDeletion = (deps: Deps) => ({
  delete: (target: CustomerTarget, options: { anonymize: boolean }, allowed: OrganizationScope) =>
    deleteCustomer(deps, target, options, allowed),
});
