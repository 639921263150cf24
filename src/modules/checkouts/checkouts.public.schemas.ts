import { Type, type Static } from "@sinclair/typebox";
import { DateTime, Nullable, Uuid4 } from "../../kit/schema.ts";
import { SubscriptionProrationBehavior } from "../organizations/organizations.schemas.ts";
import { Checkout } from "./checkouts.schemas.ts";

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

/** What the buyer's client sees: the merchant-only fields are left out, the seller is added. */
const MERCHANT_ONLY = ["metadata", "customer_metadata", "external_customer_id", "subscription_id", "trial_interval", "trial_interval_count"] as const;
const {
  metadata: _metadata, customer_metadata: _customerMetadata, external_customer_id: _externalId, subscription_id: _subscriptionId,
  trial_interval: _trialInterval, trial_interval_count: _trialCount, ...sharedProperties
} = Checkout.properties;
const publicProperties = { ...sharedProperties, organization: CheckoutOrganization };

export const CheckoutPublic = Type.Object(publicProperties, { title: "CheckoutPublic", description: "Checkout session as its client secret reads it." });
export type CheckoutPublic = Static<typeof CheckoutPublic>;

export const CheckoutPublicConfirmed = Type.Object(
  {
    ...publicProperties,
    status: Type.Literal("confirmed"),
    customer_session_token: Nullable(Type.String(), { description: "Customer session token for the buyer's portal." }),
  },
  { title: "CheckoutPublicConfirmed", description: "Checkout session right after its confirmation." },
);
export type CheckoutPublicConfirmed = Static<typeof CheckoutPublicConfirmed>;

export const MERCHANT_ONLY_FIELDS = MERCHANT_ONLY;
