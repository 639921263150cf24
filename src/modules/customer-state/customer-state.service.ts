import type { Deps } from "../../context.ts";
import type { OrganizationScope } from "../../http/auth.ts";
import { ResourceNotFound } from "../../http/errors.ts";
import { recordWebhookEvent } from "../../jobs/webhook-outbox.ts";
import type { Executor } from "../../db/database.ts";
import type { CustomerMeterService } from "../customer-meters/customer-meters.steps.ts";
import { subscriptionMeters } from "../subscriptions/subscriptions.steps.ts";
import { toCustomerState } from "./customer-state.mapper.ts";
import { findCustomerState, type CustomerLocator, type CustomerStateRow } from "./customer-state.repository.ts";
import type { CustomerState, CustomerStateSubscriptionMeter } from "./customer-state.schemas.ts";

/**
 * A customer's state, computed from the database on every read: never stale, unlike the hosted service's
 * state served from a cache up to an hour old (docs/decisions.md, "Customer state").
 */
export function createCustomerStateService(deps: Deps, customerMeters: CustomerMeterService) {
  /** The state of the row, its subscriptions' meters computed now in the caller's read-committed transaction. */
  const state = async (trx: Executor, row: CustomerStateRow): Promise<CustomerState> => {
    const now = deps.now();
    const bySubscription = new Map<string, CustomerStateSubscriptionMeter[]>();
    for (const subscription of row.active_subscriptions) {
      const meters = await subscriptionMeters(
        trx,
        {
          id: subscription.id,
          customer_id: row.id,
          created_at: new Date(subscription.created_at),
          status: subscription.status,
          current_period_start: new Date(subscription.current_period_start),
          current_period_end: new Date(subscription.current_period_end),
        },
        now,
      );
      // The state's subscription meter is the subscription's without the meter object (the reference).
      bySubscription.set(
        subscription.id,
        meters.map(({ meter: _meter, ...fields }) => fields),
      );
    }
    return toCustomerState(row, await customerMeters.ofCustomer(row.organization_id, row.id), bySubscription);
  };
  const read = async (where: CustomerLocator, allowed: OrganizationScope): Promise<CustomerState> =>
    deps.db.transaction().execute(async (trx) => {
      const row = await findCustomerState(trx, where, allowed);
      if (!row) throw new ResourceNotFound();
      return state(trx, row);
    });
  return {
    get: (id: string, allowed: OrganizationScope) => read({ id }, allowed),
    getByExternalId: (externalId: string, allowed: OrganizationScope) => read({ externalId }, allowed),

    /**
     * Records `customer.state_changed` with the state as it is now (the debounced job of
     * `contracts/customer-state-changes.ts`), so changes made since the job was enqueued are included.
     * Running twice records the then-current state twice: a snapshot repeated is harmless, as
     * deliveries are at-least-once anyway.
     */
    async publishStateChanged(customerId: string): Promise<void> {
      await deps.db.transaction().execute(async (trx) => {
        const row = await findCustomerState(trx, { id: customerId }, null);
        // A customer deleted in the meantime has no state left to report.
        if (!row) return;
        const data = await state(trx, row);
        await recordWebhookEvent(trx, { organizationId: row.organization_id, type: "customer.state_changed", data, now: deps.now() });
      });
    },
  };
}
export type CustomerStateService = ReturnType<typeof createCustomerStateService>;
