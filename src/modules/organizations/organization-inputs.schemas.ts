import { Type, type Static } from "@sinclair/typebox";
import { CountryAlpha2Input } from "../../schema/address.ts";
import { Nullable, StringEnum } from "../../schema/primitives.ts";
import { TaxBehaviorOption } from "../../schema/extra-primitives.ts";
import { CATALOG_SORTING, ListResource, PaginationQuery, SortingQuery } from "../../schema/pagination.ts";
import {
  HttpUrl,
  OrganizationResponse,
  OrganizationCustomerEmailSettings,
  OrganizationCustomerPortalSettings,
  OrganizationEmailSender,
  OrganizationFeatureSettingsUpdate,
  OrganizationNotificationSettings,
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

// The request body that updates an organization.

export const OrganizationDisputeSettingsUpdate = Type.Object(
  {
    auto_accept_below_amount: Type.Optional(
      Nullable(Type.Integer({ minimum: 1, maximum: 10_000 }), {
        description: "Concede disputes below this amount, in USD cents; null turns it off.",
      }),
    ),
  },
  { title: "OrganizationDisputeSettingsUpdate" },
);

/**
 * A host (with an optional port, `*.` for its subdomains) or an app origin with its scheme
 * (`chrome-extension://abcdef`): what an embedding origin is matched against.
 */
const EmbedHost = Type.String({
  minLength: 1,
  maxLength: 260,
  pattern: "^(?:(?:\\*\\.)?[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?(?::[0-9]{1,5})?|[a-z][a-z0-9+.-]*://[^\\s/]+)$",
});

/** Body of PATCH /v1/organizations/{id}, as the reference has it: only the keys sent apply. */
export const OrganizationUpdate = Type.Object(
  {
    name: Type.Optional(Nullable(Type.String({ minLength: 3, maxLength: 256 }))),
    avatar_url: Type.Optional(Nullable(HttpUrl())),
    email: Type.Optional(Nullable(Type.String({ format: "email", maxLength: 254 }), { description: "Public support email." })),
    website: Type.Optional(Nullable(HttpUrl(), { description: "Official website of the organization." })),
    socials: Type.Optional(Nullable(Type.Array(OrganizationSocialLink, { maxItems: 20 }), { description: "Links to social profiles." })),
    details: Type.Optional(Nullable(OrganizationDetails)),
    country: Type.Optional(Nullable(CountryAlpha2Input, { description: "Two-letter country code (ISO 3166-1 alpha-2)." })),
    feature_settings: Type.Optional(Nullable(OrganizationFeatureSettingsUpdate)),
    subscription_settings: Type.Optional(Nullable(OrganizationSubscriptionSettings)),
    customer_email_settings: Type.Optional(Nullable(OrganizationCustomerEmailSettings)),
    customer_portal_settings: Type.Optional(Nullable(OrganizationCustomerPortalSettings)),
    dispute_settings: Type.Optional(Nullable(OrganizationDisputeSettingsUpdate)),
    embed_hosts: Type.Optional(Nullable(Type.Array(EmbedHost, { maxItems: 100, description: "Hosts allowed to embed the checkout." }))),
    default_presentment_currency: Type.Optional(
      Nullable(StringEnum(PresentmentCurrencyValues, { title: "PresentmentCurrency" }), {
        description: "Default presentment currency for the organization",
      }),
    ),
    default_tax_behavior: Type.Optional(Nullable(TaxBehaviorOption(), { description: "Default tax behavior applied on products." })),
    sso_enforced: Type.Optional(
      Nullable(Type.Boolean(), { description: "Whether members must access this organization through its SSO connection." }),
    ),
  },
  { title: "OrganizationUpdate" },
);
export type OrganizationUpdate = Static<typeof OrganizationUpdate>;

/**
 * What PATCH /v1/organizations/{id} accepts: the reference's body (kept exact above, and checked
 * against it) with three extensions. `customer_email_settings` may name only the switches it
 * changes (the reference's full object is one case of it), `email_sender` sets or clears (null)
 * the organization's sender, and `notification_settings` switches the seller's own notices (per
 * switch as well).
 */
export const OrganizationUpdateBody = Type.Object(
  {
    ...OrganizationUpdate.properties,
    customer_email_settings: Type.Optional(
      Nullable(Type.Partial(OrganizationCustomerEmailSettings, { title: "OrganizationCustomerEmailSettings" }), {
        description: "Per-email switches; the ones sent replace the stored ones, the others keep their value.",
      }),
    ),
    email_sender: Type.Optional(
      Nullable(OrganizationEmailSender, {
        description: "An extension of this service: the sender of the organization's emails; null: the instance's.",
      }),
    ),
    notification_settings: Type.Optional(
      // A key it does not know is refused: a misspelt switch would otherwise leave the notice on unnoticed.
      Nullable(Type.Partial(OrganizationNotificationSettings, { title: "OrganizationNotificationSettings", additionalProperties: false }), {
        description:
          "An extension of this service: switches for the notices the organization's email receives; the ones sent replace the stored ones, the others keep their value; an unknown switch is refused.",
      }),
    ),
  },
  { title: "OrganizationUpdate" },
);
export type OrganizationUpdateBody = Static<typeof OrganizationUpdateBody>;

// The query of GET /v1/organizations/.

export const OrganizationSortKeys = ["created_at", "slug", "name", "next_review_threshold", "days_in_status"] as const;
export const OrganizationListQuery = Type.Object({
  slug: Type.Optional(Type.String({ maxLength: 256, description: "Filter by slug." })),
  ...PaginationQuery,
  sorting: SortingQuery(OrganizationSortKeys, ["created_at"], CATALOG_SORTING, { title: "OrganizationSortProperty" }),
});
export type OrganizationListQuery = Static<typeof OrganizationListQuery>;

export const ListResourceOrganization = ListResource(OrganizationResponse, { title: "ListResource[Organization]" });
