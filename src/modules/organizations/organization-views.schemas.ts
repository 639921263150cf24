import { Type, type Static } from "@sinclair/typebox";
import { DateTime, Nullable, Uuid4 } from "../../schema/primitives.ts";
import { OrganizationCustomerPortalSettings, SubscriptionProrationBehavior } from "./organizations.schemas.ts";

// The public views of an organization: what a buyer and a portal customer see of the seller.

export const CheckoutOrganization = Type.Object(
  {
    created_at: DateTime({ description: "Creation timestamp of the object." }),
    modified_at: Nullable(DateTime(), { description: "Last modification timestamp of the object." }),
    id: Uuid4({ description: "The ID of the object." }),
    name: Type.String({ description: "Organization name shown in checkout." }),
    slug: Type.String({ description: "Unique organization slug." }),
    avatar_url: Nullable(Type.String(), { description: "Avatar shown in checkout." }),
    proration_behavior: SubscriptionProrationBehavior,
    allow_customer_updates: Type.Boolean({ description: "Whether customers can change subscriptions from the portal." }),
  },
  { title: "CheckoutOrganization" },
);
export type CheckoutOrganization = Static<typeof CheckoutOrganization>;

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
