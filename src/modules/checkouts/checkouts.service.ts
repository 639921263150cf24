import type { Deps } from "../../context.ts";
import type { OrganizationScope } from "../../kit/auth.ts";
import { ResourceNotFound } from "../../kit/errors.ts";
import { toCheckout } from "./checkouts.mapper.ts";
import { findCheckoutWithRelations } from "./checkouts.repository.ts";
import type { Checkout } from "./checkouts.schemas.ts";

export function createCheckoutService(deps: Deps) {
  const urls = { checkoutBaseUrl: deps.config.checkoutBaseUrl };
  return {
    /** Reading never changes status: expiry is the scheduled job's business. */
    async get(id: string, allowed: OrganizationScope): Promise<Checkout> {
      const row = await findCheckoutWithRelations(deps.db, { id }, allowed);
      if (!row) throw new ResourceNotFound();
      return toCheckout(row, urls);
    },
  };
}
export type CheckoutService = ReturnType<typeof createCheckoutService>;
