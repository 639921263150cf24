import type { Deps } from "../../context.ts";
import type { Executor } from "../../db/database.ts";
import type { OrganizationScope } from "../../kit/auth.ts";
import { ResourceNotFound } from "../../kit/errors.ts";
import { findOrganization } from "../organizations/organizations.repository.ts";
import type { OrganizationRow } from "../organizations/organizations.table.ts";
import type { TaxEngine } from "../tax/tax.engine.ts";
import { recordWebhookEvent, type WebhookEventType } from "../webhooks/webhook-events.outbox.ts";
import { draftColumns, draftOf } from "./checkouts.drafts.ts";
import { applyChanges } from "./checkouts.editor.ts";
import type { CheckoutChanges } from "./checkouts.inputs.ts";
import { toCheckout } from "./checkouts.mapper.ts";
import { findCheckoutForUpdate, findCheckoutProducts, findCheckoutWithRelations, updateCheckout, type CheckoutLocator, type CheckoutWithRelations } from "./checkouts.repository.ts";
import type { Checkout } from "./checkouts.schemas.ts";
import type { CheckoutRow } from "./checkouts.table.ts";

export interface Published {
  full: CheckoutWithRelations;
  checkout: Checkout;
}

/** What every checkout write path shares: locking, editing, reading back and publishing. */
export function createCheckoutStore(deps: Deps, taxEngine: TaxEngine) {
  const urls = { checkoutBaseUrl: deps.config.checkoutBaseUrl };

  async function organizationOf(db: Executor, organizationId: string): Promise<OrganizationRow> {
    const organization = await findOrganization(db, organizationId, null);
    if (!organization) throw new ResourceNotFound();
    return organization;
  }

  return {
    urls,
    organizationOf,
    view: (full: CheckoutWithRelations): Checkout => toCheckout(full, urls),

    async lock(db: Executor, where: CheckoutLocator, allowed: OrganizationScope): Promise<CheckoutRow> {
      const row = await findCheckoutForUpdate(db, where, allowed);
      if (!row) throw new ResourceNotFound();
      return row;
    },

    /** Applies an edit to a locked session and stores it; the caller publishes. */
    async edit(db: Executor, row: CheckoutRow, changes: CheckoutChanges, side: "merchant" | "buyer"): Promise<CheckoutRow> {
      const organization = await organizationOf(db, row.organization_id);
      const now = deps.now();
      const { draft, priced } = await applyChanges(draftOf(row), changes, {
        db,
        products: await findCheckoutProducts(db, row.id),
        defaultTaxBehavior: organization.default_tax_behavior,
        taxEngine,
        now,
        side,
        creating: false,
      });
      return updateCheckout(db, row.id, { ...draftColumns(draft, priced), modified_at: now });
    },

    /** Reads the session back as the API shows it and records the webhook event in the same transaction. */
    async publish(db: Executor, id: string, type: WebhookEventType): Promise<Published> {
      const full = await findCheckoutWithRelations(db, { id }, null);
      if (!full) throw new ResourceNotFound();
      const checkout = toCheckout(full, urls);
      await recordWebhookEvent(db, { organizationId: full.organization_id, type, data: checkout, now: deps.now() });
      return { full, checkout };
    },
  };
}
export type CheckoutStore = ReturnType<typeof createCheckoutStore>;
