import type { Deps } from "../../context.ts";
import type { OrganizationScope } from "../../kit/auth.ts";
import { ResourceNotFound } from "../../kit/errors.ts";
import { recordWebhookEvent } from "../../jobs/webhook-outbox.ts";
import type { CustomerMeterService } from "../customer-meters/customer-meters.service.ts";
import { toCustomerState } from "./customer-state.mapper.ts";
import { findCustomerState, type CustomerLocator, type CustomerStateRow } from "./customer-state.repository.ts";
import type { CustomerState } from "./customer-state.schemas.ts";

/**
 * A customer's state, computed from the database on every read: never stale, unlike the anchor's
 * state served from a cache up to an hour old (docs/decisions.md, "Customer state").
 */
export function createCustomerStateService(deps: Deps, customerMeters: CustomerMeterService) {
  const state = async (row: CustomerStateRow): Promise<CustomerState> =>
    toCustomerState(row, await customerMeters.ofCustomer(row.organization_id, row.id));
  const read = async (where: CustomerLocator, allowed: OrganizationScope): Promise<CustomerState> => {
    const row = await findCustomerState(deps.db, where, allowed);
    if (!row) throw new ResourceNotFound();
    return state(row);
  };
  return {
    get: (id: string, allowed: OrganizationScope) => read({ id }, allowed),
    getByExternalId: (externalId: string, allowed: OrganizationScope) => read({ externalId }, allowed),

    /**
     * Records `customer.state_changed` with the state as it is now (the debounced job of
     * `jobs/customer-state-changes.ts`), so changes made since the job was enqueued are included.
     * Running twice records the then-current state twice: a snapshot repeated is harmless, as
     * deliveries are at-least-once anyway.
     */
    async publishStateChanged(customerId: string): Promise<void> {
      await deps.db.transaction().execute(async (trx) => {
        const row = await findCustomerState(trx, { id: customerId }, null);
        // A customer deleted in the meantime has no state left to report.
        if (!row) return;
        const data = await state(row);
        await recordWebhookEvent(trx, { organizationId: row.organization_id, type: "customer.state_changed", data, now: deps.now() });
      });
    },
  };
}
export type CustomerStateService = ReturnType<typeof createCustomerStateService>;
