import { toOrganization } from "../organizations/organizations.service.ts";
import type { OrganizationRow } from "../organizations/organizations.table.ts";
import type { CustomerOrganization } from "./organization.schemas.ts";

/** Built from the organization's full view, so defaults for unset settings are applied in one place. */
export function toCustomerOrganization(row: OrganizationRow): CustomerOrganization {
  const organization = toOrganization(row);
  return {
    created_at: organization.created_at,
    modified_at: organization.modified_at,
    id: organization.id,
    name: organization.name,
    slug: organization.slug,
    avatar_url: organization.avatar_url,
    proration_behavior: organization.proration_behavior,
    allow_customer_updates: organization.allow_customer_updates,
    customer_portal_settings: organization.customer_portal_settings,
    organization_features: {
      member_model_enabled: organization.feature_settings?.member_model_enabled ?? false,
      checkout_localization_enabled: organization.feature_settings?.checkout_localization_enabled ?? false,
    },
  };
}
