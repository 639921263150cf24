import type { Deps } from "../../context.ts";
import type { Executor } from "../../db/database.ts";
import { ResourceNotFound } from "../../http/errors.ts";
import type { CheckoutConfirm, CheckoutUpdatePublic } from "./checkout-inputs.schemas.ts";
import { assertNotExpired, assertOpenForBuyer } from "./checkouts.errors.ts";
import { toCheckoutPublic } from "./checkouts.mapper.ts";
import { checkoutClockOffset, findCheckoutWithRelations, markCheckoutOpened, type CheckoutWithRelations } from "./checkouts.repository.ts";
import { setRequestClockOffset } from "../../values/clock.ts";
import type { CheckoutPublic, CheckoutPublicConfirmed } from "./checkouts.schemas.ts";
import type { CheckoutSessions } from "./checkouts.service.ts";
import type { OrganizationRow } from "../organizations/organizations.table.ts";

/** What confirming gives the buyer's side: the session as confirmed, and the buyer's new customer session. */
export interface CheckoutConfirmation {
  confirmed: CheckoutWithRelations;
  organization: OrganizationRow;
  /** Null while the processor has not settled the charge (the buyer's 3-D Secure step). */
  customerSessionToken: string | null;
}

/** Confirm → charge → complete: the checkout flow, handed in by the composition root (features never import flows). */
export interface CheckoutConfirmer {
  confirm(clientSecret: string, input: CheckoutConfirm): Promise<CheckoutConfirmation>;
}

/** The buyer's side of a session: reached by its client secret, no token needed. */
export function createCheckoutClientService(deps: Deps, sessions: CheckoutSessions, confirmation: CheckoutConfirmer) {
  /**
   * A buyer's request carries no token, whose principal would set the organization's clock: a
   * sandbox organization that advanced its test clock sells at its own time, as its renewals run.
   */
  const enterOrganizationClock = (offsetMs: number) => {
    if (offsetMs !== 0) setRequestClockOffset(offsetMs);
  };

  async function view(db: Executor, clientSecret: string): Promise<CheckoutPublic> {
    const row = await findCheckoutWithRelations(db, { clientSecret }, null);
    if (!row) throw new ResourceNotFound();
    const organization = await sessions.organizationOf(db, row.organization_id);
    enterOrganizationClock(organization.clock_offset_ms);
    assertNotExpired(row, deps.now());
    // The first view is what the metrics' `checkouts` count (a session made by the API and never shown does not count).
    if (row.opened_at === null) await markCheckoutOpened(db, row.id, deps.now());
    return toCheckoutPublic(row, sessions.urls, organization);
  }

  return {
    get: (clientSecret: string) => view(deps.db, clientSecret),

    async update(clientSecret: string, input: CheckoutUpdatePublic): Promise<CheckoutPublic> {
      enterOrganizationClock(await checkoutClockOffset(deps.db, clientSecret));
      return deps.db.transaction().execute(async (trx) => {
        const row = await sessions.lock(trx, { clientSecret }, null);
        assertOpenForBuyer(row, deps.now());
        const edited = await sessions.edit(trx, row, input, "buyer");
        const { full } = await sessions.publish(trx, row.id, "checkout.updated", edited);
        return toCheckoutPublic(full, sessions.urls, await sessions.organizationOf(trx, row.organization_id));
      });
    },

    // The flow enters the organization's clock itself, from the organization it reads under the session's lock.
    async confirm(clientSecret: string, input: CheckoutConfirm): Promise<CheckoutPublicConfirmed> {
      const { confirmed, organization, customerSessionToken } = await confirmation.confirm(clientSecret, input);
      return {
        ...toCheckoutPublic(confirmed, sessions.urls, organization),
        status: "confirmed",
        customer_session_token: customerSessionToken,
      };
    },
  };
}
export type CheckoutClientService = ReturnType<typeof createCheckoutClientService>;
