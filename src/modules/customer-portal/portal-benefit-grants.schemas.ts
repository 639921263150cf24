import { Type, type Static, type TObject, type TProperties } from "@sinclair/typebox";
import { ListResource, OneOrMany, PaginationQuery, SortingQuery } from "../../schema/pagination.ts";
import { MetadataOutput, Nullable, Uuid4 } from "../../schema/primitives.ts";
import * as G from "../benefits/benefit-grants.schemas.ts";
import {
  BenefitLicenseKeysProperties,
  BenefitPublic,
  BenefitType,
  type BenefitType as BenefitTypeName,
} from "../benefits/benefits.schemas.ts";
import { CheckoutOrganization } from "../organizations/organization-views.schemas.ts";
import { CustomerPortalCustomer } from "./portal-customers.schemas.ts";

/** The seller as a grant's benefit shows it: the checkout's view of the organization. */
export const BenefitSubscriberOrganization = Type.Object(CheckoutOrganization.properties, { title: "BenefitSubscriberOrganization" });

/**
 * A grant's benefit, with one key the reference does not list: `metadata` (the benefit's), which
 * the hosted service answered to the 0.x clients and which they require (anchor-behaviour-wave3 §7).
 */
const subscriber = <K extends BenefitTypeName, P extends TProperties>(name: string, type: K, properties: TObject<P>) =>
  Type.Object(
    {
      ...BenefitPublic.properties,
      type: Type.Literal(type),
      metadata: MetadataOutput({ description: "The benefit's metadata (not in the reference; the 0.x clients require it)." }),
      organization: BenefitSubscriberOrganization,
      properties,
    },
    { title: `Benefit${name}Subscriber` },
  );

const props = <P extends TProperties>(name: string, properties: P) =>
  Type.Object(properties, { title: `Benefit${name}SubscriberProperties` });

/** What a customer may see of each type's configuration. */
const subscribers = {
  discord: subscriber("Discord", "discord", props("Discord", { guild_id: Type.String() })),
  github_repository: subscriber(
    "GitHubRepository",
    "github_repository",
    props("GitHubRepository", { repository_owner: Type.String(), repository_name: Type.String() }),
  ),
  downloadables: subscriber("Downloadables", "downloadables", props("Downloadables", { active_files: Type.Array(Uuid4()) })),
  license_keys: subscriber("LicenseKeys", "license_keys", props("LicenseKeys", BenefitLicenseKeysProperties.properties)),
  custom: subscriber("Custom", "custom", props("Custom", { note: Nullable(Type.String()) })),
  meter_credit: subscriber(
    "MeterCredit",
    "meter_credit",
    props("MeterCredit", { units: Type.Integer(), rollover: Type.Boolean(), meter_id: Uuid4() }),
  ),
  feature_flag: subscriber("FeatureFlag", "feature_flag", props("FeatureFlag", {})),
  slack_shared_channel: subscriber("SlackSharedChannel", "slack_shared_channel", props("SlackSharedChannel", {})),
};

const grant = <B extends TObject, P extends TObject>(name: string, benefit: B, properties: P) =>
  Type.Object({ ...G.benefitGrantFields, customer: CustomerPortalCustomer, benefit, properties }, { title: `CustomerBenefitGrant${name}` });

/** A grant as its customer sees it: one shape per benefit type. */
export const CustomerBenefitGrant = Type.Union(
  [
    grant("Discord", subscribers.discord, G.BenefitGrantDiscordProperties),
    grant("GitHubRepository", subscribers.github_repository, G.BenefitGrantGitHubRepositoryProperties),
    grant("Downloadables", subscribers.downloadables, G.BenefitGrantDownloadablesProperties),
    grant("LicenseKeys", subscribers.license_keys, G.BenefitGrantLicenseKeysProperties),
    grant("Custom", subscribers.custom, G.BenefitGrantCustomProperties),
    grant("MeterCredit", subscribers.meter_credit, G.BenefitGrantMeterCreditProperties),
    grant("FeatureFlag", subscribers.feature_flag, G.BenefitGrantFeatureFlagProperties),
    grant("SlackSharedChannel", subscribers.slack_shared_channel, G.BenefitGrantSlackSharedChannelProperties),
  ],
  { title: "CustomerBenefitGrant" },
);
export type CustomerBenefitGrant = Static<typeof CustomerBenefitGrant>;
export type BenefitSubscriber = CustomerBenefitGrant["benefit"];

export const ListResourceCustomerBenefitGrant = ListResource(CustomerBenefitGrant, { title: "ListResource[CustomerBenefitGrant]" });

const typeOnly = <K extends BenefitTypeName>(name: string, type: K) =>
  Type.Object({ benefit_type: Type.Literal(type) }, { title: `CustomerBenefitGrant${name}Update` });
const withProperties = <K extends BenefitTypeName, P extends TProperties>(name: string, type: K, properties: TObject<P>) =>
  Type.Object({ benefit_type: Type.Literal(type), properties }, { title: `CustomerBenefitGrant${name}Update` });
const AccountUpdate = (name: string) =>
  Type.Object({ account_id: Nullable(Type.String({ maxLength: 256 })) }, { title: `CustomerBenefitGrant${name}PropertiesUpdate` });

/** What a customer may set on a grant: the account a Discord or GitHub grant goes to, the email a Slack channel invites. */
export const CustomerBenefitGrantUpdate = Type.Union(
  [
    withProperties("Discord", "discord", AccountUpdate("Discord")),
    withProperties("GitHubRepository", "github_repository", AccountUpdate("GitHubRepository")),
    typeOnly("Downloadables", "downloadables"),
    typeOnly("LicenseKeys", "license_keys"),
    typeOnly("Custom", "custom"),
    typeOnly("MeterCredit", "meter_credit"),
    typeOnly("FeatureFlag", "feature_flag"),
    withProperties(
      "SlackSharedChannel",
      "slack_shared_channel",
      Type.Object(
        { invited_email: Type.String({ format: "email", maxLength: 320 }) },
        { title: "CustomerBenefitGrantSlackSharedChannelPropertiesUpdate" },
      ),
    ),
  ],
  { title: "CustomerBenefitGrantUpdate" },
);
export type CustomerBenefitGrantUpdate = Static<typeof CustomerBenefitGrantUpdate>;

export const CustomerBenefitGrantSortKeys = ["granted_at", "type", "organization", "product_benefit"] as const;

export const CustomerBenefitGrantListQuery = Type.Object({
  query: Type.Optional(Type.String({ maxLength: 256, description: "Filter by benefit description." })),
  type: OneOrMany(BenefitType, "Filter by benefit type."),
  benefit_id: OneOrMany(Uuid4(), "Filter by benefit ID."),
  checkout_id: OneOrMany(Uuid4(), "Filter by checkout ID."),
  order_id: OneOrMany(Uuid4(), "Filter by order ID."),
  subscription_id: OneOrMany(Uuid4(), "Filter by subscription ID."),
  member_id: OneOrMany(Uuid4(), "Filter by member ID."),
  ...PaginationQuery,
  sorting: SortingQuery(
    CustomerBenefitGrantSortKeys,
    ["product_benefit", "-granted_at"],
    { maxItems: 20 },
    { title: "CustomerBenefitGrantSortProperty" },
  ),
});
export type CustomerBenefitGrantListQuery = Static<typeof CustomerBenefitGrantListQuery>;
