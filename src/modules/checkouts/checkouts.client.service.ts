import type { Deps } from "../../context.ts";
import type { Executor } from "../../db/database.ts";
import { ResourceNotFound } from "../../http/errors.ts";
import type { CheckoutConfirm, CheckoutUpdatePublic } from "./checkout-inputs.schemas.ts";
import type { CheckoutConfirmation } from "./checkouts.confirm.ts";
import { assertNotExpired, assertOpenForBuyer } from "./checkouts.errors.ts";
import { toCheckoutPublic } from "./checkouts.mapper.ts";
import { findCheckoutWithRelations } from "./checkouts.repository.ts";
import type { CheckoutPublic, CheckoutPublicConfirmed } from "./checkouts.schemas.ts";
import type { CheckoutSessions } from "./checkouts.service.ts";

/** The buyer's side of a session: reached by its client secret, no token needed. */
export function createCheckoutClientService(deps: Deps, sessions: CheckoutSessions, confirmation: CheckoutConfirmation) {
  async function view(db: Executor, clientSecret: string): Promise<CheckoutPublic> {
    const row = await findCheckoutWithRelations(db, { clientSecret }, null);
    if (!row) throw new ResourceNotFound();
    assertNotExpired(row, deps.now());
    return toCheckoutPublic(row, sessions.urls, await sessions.organizationOf(db, row.organization_id));
  }

  return {
    get: (clientSecret: string) => view(deps.db, clientSecret),

    async update(clientSecret: string, input: CheckoutUpdatePublic): Promise<CheckoutPublic> {
      return deps.db.transaction().execute(async (trx) => {
        const row = await sessions.lock(trx, { clientSecret }, null);
        assertOpenForBuyer(row, deps.now());
        await sessions.edit(trx, row, input, "buyer");
        const { full } = await sessions.publish(trx, row.id, "checkout.updated");
        return toCheckoutPublic(full, sessions.urls, await sessions.organizationOf(trx, row.organization_id));
      });
    },

    confirm: (clientSecret: string, input: CheckoutConfirm): Promise<CheckoutPublicConfirmed> => confirmation.confirm(clientSecret, input),
  };
}
export type CheckoutClientService = ReturnType<typeof createCheckoutClientService>;
