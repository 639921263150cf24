import { Type, type Static, type TObject } from "@sinclair/typebox";
import { ListResource, OneOrMany, PaginationQuery, SortingQuery } from "../../schema/pagination.ts";
import { DateTime, Nullable, StringEnum, Uuid4 } from "../../schema/primitives.ts";
import { Customer } from "../customers/customers.schemas.ts";
import * as B from "./benefits.schemas.ts";

// What a grant produced, per benefit type. Every key is optional in the reference: a grant that is
// still being set up (or failed) carries none. Only license keys produce properties here today.

export const BenefitGrantDiscordProperties = Type.Object(
  {
    account_id: Type.Optional(Nullable(Type.String())),
    guild_id: Type.Optional(Type.String()),
    role_id: Type.Optional(Type.String()),
    granted_account_id: Type.Optional(Type.String()),
  },
  { title: "BenefitGrantDiscordProperties" },
);

export const BenefitGrantGitHubRepositoryProperties = Type.Object(
  {
    account_id: Type.Optional(Nullable(Type.String())),
    repository_owner: Type.Optional(Type.String()),
    repository_name: Type.Optional(Type.String()),
    permission: Type.Optional(StringEnum(["pull", "triage", "push", "maintain", "admin"])),
    granted_account_id: Type.Optional(Type.String()),
  },
  { title: "BenefitGrantGitHubRepositoryProperties" },
);

export const BenefitGrantDownloadablesProperties = Type.Object(
  { files: Type.Optional(Type.Array(Type.String())) },
  { title: "BenefitGrantDownloadablesProperties" },
);

export const BenefitGrantLicenseKeysProperties = Type.Object(
  {
    user_provided_key: Type.Optional(Type.String()),
    license_key_id: Type.Optional(Type.String()),
    display_key: Type.Optional(Type.String()),
  },
  { title: "BenefitGrantLicenseKeysProperties" },
);

export const BenefitGrantMeterCreditProperties = Type.Object(
  {
    last_credited_meter_id: Type.Optional(Type.String()),
    last_credited_units: Type.Optional(Type.Integer()),
    last_credited_at: Type.Optional(Type.String()),
  },
  { title: "BenefitGrantMeterCreditProperties" },
);

export const BenefitGrantCustomProperties = Type.Object({}, { title: "BenefitGrantCustomProperties" });
export const BenefitGrantFeatureFlagProperties = Type.Object({}, { title: "BenefitGrantFeatureFlagProperties" });

export const BenefitGrantSlackSharedChannelProperties = Type.Object(
  {
    invited_email: Type.Optional(Type.String()),
    channel_id: Type.Optional(Type.String()),
    channel_name: Type.Optional(Type.String()),
    invite_id: Type.Optional(Type.String()),
    invite_url: Type.Optional(Type.String()),
    connected_team_id: Type.Optional(Type.String()),
  },
  { title: "BenefitGrantSlackSharedChannelProperties" },
);

/** A grant's properties: not discriminated on the wire (the benefit's type tells which). */
export const BenefitGrantProperties = Type.Union(
  [
    BenefitGrantDiscordProperties,
    BenefitGrantGitHubRepositoryProperties,
    BenefitGrantDownloadablesProperties,
    BenefitGrantLicenseKeysProperties,
    BenefitGrantCustomProperties,
    BenefitGrantFeatureFlagProperties,
    BenefitGrantSlackSharedChannelProperties,
  ],
  { title: "Properties" },
);
export type BenefitGrantProperties = Static<typeof BenefitGrantProperties>;

export const BenefitGrantError = Type.Object(
  { message: Type.String(), type: Type.String(), timestamp: Type.String() },
  { title: "BenefitGrantError" },
);

/** The fields every view of a grant shares: the merchant's, the webhook's and the customer's. */
export const benefitGrantFields = {
  created_at: DateTime({ description: "Creation timestamp of the object." }),
  modified_at: Nullable(DateTime(), { description: "Last modification timestamp of the object." }),
  id: Uuid4({ description: "The ID of the grant." }),
  granted_at: Nullable(DateTime(), { description: "When the benefit was granted; null while it is not." }),
  is_granted: Type.Boolean({ description: "Whether the benefit is granted." }),
  revoked_at: Nullable(DateTime(), { description: "When the benefit was revoked; null while it is not." }),
  is_revoked: Type.Boolean({ description: "Whether the benefit is revoked." }),
  subscription_id: Nullable(Uuid4(), { description: "The subscription that granted the benefit." }),
  order_id: Nullable(Uuid4(), { description: "The order that granted the benefit." }),
  customer_id: Uuid4({ description: "The customer the grant is for." }),
  member_id: Type.Optional(Nullable(Uuid4(), { description: "The member the grant is for." })),
  benefit_id: Uuid4({ description: "The benefit granted." }),
  error: Type.Optional(Nullable(BenefitGrantError, { description: "Why the grant failed, when it did." })),
};

/**
 * A grant as the organization sees it, with its customer and benefit. The reference leaves its two
 * timestamps optional here (the customer's view requires them); this service always sends both.
 */
export const BenefitGrant = Type.Object(
  {
    ...benefitGrantFields,
    granted_at: Type.Optional(benefitGrantFields.granted_at),
    revoked_at: Type.Optional(benefitGrantFields.revoked_at),
    customer: Customer,
    benefit: B.Benefit,
    properties: BenefitGrantProperties,
  },
  { title: "BenefitGrant" },
);
export type BenefitGrant = Static<typeof BenefitGrant>;

const webhookVariant = <B extends TObject, P extends TObject>(name: string, benefit: B, properties: P) =>
  Type.Object(
    {
      ...BenefitGrant.properties,
      benefit,
      properties,
      previous_properties: Type.Optional(Nullable(properties, { description: "The grant's properties before the change." })),
    },
    { title: `BenefitGrant${name}Webhook` },
  );

/** The `data` of a `benefit_grant.*` webhook: the grant, and its properties before the change; one shape per benefit type. */
export const BenefitGrantWebhook = Type.Union(
  [
    webhookVariant("Discord", B.BenefitDiscord, BenefitGrantDiscordProperties),
    webhookVariant("Custom", B.BenefitCustom, BenefitGrantCustomProperties),
    webhookVariant("GitHubRepository", B.BenefitGitHubRepository, BenefitGrantGitHubRepositoryProperties),
    webhookVariant("Downloadables", B.BenefitDownloadables, BenefitGrantDownloadablesProperties),
    webhookVariant("LicenseKeys", B.BenefitLicenseKeys, BenefitGrantLicenseKeysProperties),
    webhookVariant("MeterCredit", B.BenefitMeterCredit, BenefitGrantMeterCreditProperties),
    webhookVariant("FeatureFlag", B.BenefitFeatureFlag, BenefitGrantFeatureFlagProperties),
    webhookVariant("SlackSharedChannel", B.BenefitSlackSharedChannel, BenefitGrantSlackSharedChannelProperties),
  ],
  { title: "BenefitGrantWebhook" },
);
export type BenefitGrantWebhook = Static<typeof BenefitGrantWebhook>;

export const ListResourceBenefitGrant = ListResource(BenefitGrant, { title: "ListResource[BenefitGrant]" });

export const BenefitGrantSortKeys = ["created_at", "granted_at", "revoked_at"] as const;
export type BenefitGrantSortKey = (typeof BenefitGrantSortKeys)[number];

export const BenefitGrantListQuery = Type.Object({
  organization_id: OneOrMany(Uuid4(), "Filter by organization ID."),
  customer_id: OneOrMany(Uuid4(), "Filter by customer ID."),
  external_customer_id: OneOrMany(Type.String({ maxLength: 256 }), "Filter by customer external ID."),
  is_granted: Type.Optional(Type.Boolean({ description: "`true`: granted grants only; `false`: the others (revoked, or never granted)." })),
  ...PaginationQuery,
  sorting: SortingQuery(BenefitGrantSortKeys, ["-created_at"], { maxItems: 20 }, { title: "BenefitGrantSortProperty" }),
});
export type BenefitGrantListQuery = Static<typeof BenefitGrantListQuery>;

/** The grants of one benefit: newest first, no sorting parameter. */
export const BenefitGrantsOfBenefitQuery = Type.Object({
  is_granted: BenefitGrantListQuery.properties.is_granted,
  customer_id: OneOrMany(Uuid4(), "Filter by customer."),
  member_id: OneOrMany(Uuid4(), "Filter by member."),
  ...PaginationQuery,
});
export type BenefitGrantsOfBenefitQuery = Static<typeof BenefitGrantsOfBenefitQuery>;
