import { Type, type Static } from "@sinclair/typebox";
import { CountryAlpha2Input } from "../../schema/address.ts";
import { Nullable, StringEnum } from "../../schema/primitives.ts";
import { TaxBehaviorOption } from "../../schema/extra-primitives.ts";
import {
  HttpUrl,
  OrganizationCustomerEmailSettings,
  OrganizationCustomerPortalSettings,
  OrganizationFeatureSettingsUpdate,
  OrganizationSocialLink,
  OrganizationSubscriptionSettings,
  PresentmentCurrencyValues,
} from "./organizations.schemas.ts";

// The request bodies that create an organization.

export const OrganizationDetails = Type.Object(
  {
    about: Type.Optional(Nullable(Type.String(), { deprecated: true })),
    product_description: Type.Optional(Nullable(Type.String(), { description: "What digital products are sold." })),
    selling_categories: Type.Optional(Type.Array(Type.String())),
    pricing_models: Type.Optional(Type.Array(Type.String())),
    intended_use: Type.Optional(Nullable(Type.String(), { deprecated: true })),
    customer_acquisition: Type.Optional(Type.Array(Type.String(), { deprecated: true })),
    future_annual_revenue: Type.Optional(Nullable(Type.Integer({ minimum: 0 }), { deprecated: true })),
    switching: Type.Optional(Type.Boolean({ default: false, description: "Whether the organization moves from another platform." })),
    switching_from: Type.Optional(Nullable(StringEnum(["paddle", "lemon_squeezy", "gumroad", "stripe", "other"] as const))),
    previous_annual_revenue: Type.Optional(Nullable(Type.Integer({ minimum: 0 }), { deprecated: true })),
  },
  { title: "OrganizationDetails" },
);

export const OrganizationIndividualLegalEntitySchema = Type.Object(
  { type: Type.Literal("individual") },
  { title: "OrganizationIndividualLegalEntitySchema" },
);
export const OrganizationCompanyLegalEntitySchema = Type.Object(
  { type: Type.Literal("company"), registered_name: Type.String() },
  { title: "OrganizationCompanyLegalEntitySchema" },
);
const LegalEntity = Type.Union([OrganizationIndividualLegalEntitySchema, OrganizationCompanyLegalEntitySchema]);

/** How invoice numbers are counted; the prefix is the organization slug in capitals. */
export const OrganizationOrderSettings = Type.Object(
  {
    invoice_numbering: StringEnum(["customer", "organization"] as const, {
      title: "InvoiceNumbering",
      default: "customer",
      description:
        "`customer`: {PREFIX}-{CUSTOMER SHORT ID}-{NNNN}, one counter per customer; `organization`: {PREFIX}-{NNNN}, one counter for the organization.",
    }),
  },
  { title: "OrganizationOrderSettings" },
);

/** Body of POST /v1/organizations/. Unknown keys are ignored, as upstream does. */
export const OrganizationCreate = Type.Object(
  {
    name: Type.String({ minLength: 3 }),
    slug: Type.String({ minLength: 3, maxLength: 64 }),
    avatar_url: Type.Optional(Nullable(HttpUrl())),
    legal_entity: Type.Optional(Nullable(LegalEntity)),
    email: Type.Optional(Nullable(Type.String({ format: "email" }), { description: "Public support email." })),
    website: Type.Optional(Nullable(HttpUrl(), { description: "Official website." })),
    socials: Type.Optional(Nullable(Type.Array(OrganizationSocialLink), { description: "Social profile links." })),
    details: Type.Optional(Nullable(OrganizationDetails, { description: "Private business details used for compliance review." })),
    country: Type.Optional(Nullable(CountryAlpha2Input, { description: "ISO 3166-1 alpha-2 country code." })),
    feature_settings: Type.Optional(Nullable(OrganizationFeatureSettingsUpdate)),
    subscription_settings: Type.Optional(Nullable(OrganizationSubscriptionSettings)),
    customer_email_settings: Type.Optional(Nullable(OrganizationCustomerEmailSettings)),
    customer_portal_settings: Type.Optional(Nullable(OrganizationCustomerPortalSettings)),
    default_presentment_currency: Type.Optional(
      StringEnum(PresentmentCurrencyValues, { title: "PresentmentCurrency", default: "usd", description: "Default presentment currency." }),
    ),
    default_tax_behavior: Type.Optional(
      TaxBehaviorOption({ default: "location", description: "Tax behavior applied to products by default." }),
    ),
  },
  { title: "OrganizationCreate" },
);
export type OrganizationCreate = Static<typeof OrganizationCreate>;

/**
 * What POST /v1/organizations/ accepts: the reference's body (kept exact above, and checked
 * against it) plus this service's optional `order_settings`, the one way to choose numbering.
 */
export const OrganizationCreateBody = Type.Object(
  {
    ...OrganizationCreate.properties,
    order_settings: Type.Optional(Nullable(OrganizationOrderSettings, { description: "Invoice numbering of the organization's orders." })),
  },
  { title: "OrganizationCreate" },
);
export type OrganizationCreateBody = Static<typeof OrganizationCreateBody>;
