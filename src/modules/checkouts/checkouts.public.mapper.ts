import { toIso, toIsoOrNull } from "../../kit/schema.ts";
import type { OrganizationRow } from "../organizations/organizations.table.ts";
import type { SubscriptionProrationBehavior } from "../organizations/organizations.schemas.ts";
import { toCheckout, type CheckoutUrls } from "./checkouts.mapper.ts";
import type { CheckoutOrganization, CheckoutPublic } from "./checkouts.public.schemas.ts";
import { MERCHANT_ONLY_FIELDS } from "./checkouts.public.schemas.ts";
import type { CheckoutWithRelations } from "./checkouts.repository.ts";

export function toCheckoutOrganization(row: OrganizationRow): CheckoutOrganization {
  const settings = row.subscription_settings as { proration_behavior?: SubscriptionProrationBehavior; allow_customer_updates?: boolean };
  return {
    created_at: toIso(row.created_at),
    modified_at: toIsoOrNull(row.modified_at),
    id: row.id,
    name: row.name,
    slug: row.slug,
    avatar_url: row.avatar_url,
    proration_behavior: settings.proration_behavior ?? "prorate",
    allow_customer_updates: settings.allow_customer_updates ?? true,
  };
}

/** The buyer's view: the merchant's own fields removed, the seller's identity added. */
export function toCheckoutPublic(row: CheckoutWithRelations, urls: CheckoutUrls, organization: OrganizationRow): CheckoutPublic {
  const full: Record<string, unknown> = { ...toCheckout(row, urls) };
  for (const key of MERCHANT_ONLY_FIELDS) delete full[key];
  return { ...(full as Omit<CheckoutPublic, "organization">), organization: toCheckoutOrganization(organization) };
}
