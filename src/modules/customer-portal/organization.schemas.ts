import { Type, type Static } from "@sinclair/typebox";
import { CheckoutOrganization } from "../checkouts/checkouts.public.schemas.ts";
import { OrganizationCustomerPortalSettings } from "../organizations/organizations.schemas.ts";

const flag = (description: string) => Type.Optional(Type.Boolean({ default: false, description }));

export const CustomerOrganizationFeatureSettings = Type.Object(
  {
    member_model_enabled: flag("Whether the member model is enabled for this organization."),
    checkout_localization_enabled: flag("Whether checkout localization is enabled for this organization."),
  },
  { title: "CustomerOrganizationFeatureSettings", description: "Feature flags the customer portal needs." },
);

/** The seller as a portal customer sees it: the checkout's view plus the portal settings and flags. */
export const CustomerOrganization = Type.Object(
  {
    ...CheckoutOrganization.properties,
    customer_portal_settings: OrganizationCustomerPortalSettings,
    organization_features: Type.Optional(CustomerOrganizationFeatureSettings),
  },
  { title: "CustomerOrganization" },
);
export type CustomerOrganization = Static<typeof CustomerOrganization>;
