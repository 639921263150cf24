import { Type, type Static, type TObject, type TProperties } from "@sinclair/typebox";
import { DateTime, MetadataOutput, Nullable, StringEnum, Uuid4 } from "../../schema/primitives.ts";
import { UuidRecord } from "../../schema/extra-primitives.ts";
import { ListResource } from "../../schema/pagination.ts";

export const BenefitTypeValues = [
  "custom",
  "discord",
  "github_repository",
  "downloadables",
  "license_keys",
  "meter_credit",
  "feature_flag",
  "slack_shared_channel",
] as const;
export const BenefitType = StringEnum(BenefitTypeValues, { title: "BenefitType" });
export type BenefitType = Static<typeof BenefitType>;

export const BenefitVisibilityValues = ["draft", "private", "public"] as const;
export const BenefitVisibility = StringEnum(BenefitVisibilityValues, {
  title: "BenefitVisibility",
  description: "Visibility of the benefit in the customer portal.",
});
export type BenefitVisibility = Static<typeof BenefitVisibility>;

const publicFields = {
  id: Uuid4({ description: "ID of the benefit." }),
  created_at: DateTime({ description: "Creation timestamp of the object." }),
  modified_at: Nullable(DateTime(), { description: "Last modification timestamp of the object." }),
  type: BenefitType,
  description: Type.String({ description: "Description of the benefit." }),
  selectable: Type.Boolean({ description: "Whether the benefit can be picked when creating a product." }),
  deletable: Type.Boolean({ description: "Whether the benefit can be deleted." }),
  is_deleted: Type.Boolean({ description: "Whether the benefit has been deleted." }),
  organization_id: Uuid4({ description: "ID of the organization owning the benefit." }),
};

/** Benefit as shown to buyers: no configuration, no metadata. */
export const BenefitPublic = Type.Object(publicFields, { title: "BenefitPublic" });
export type BenefitPublic = Static<typeof BenefitPublic>;

const benefit = <K extends BenefitType, P extends TProperties>(title: string, type: K, properties: TObject<P>) =>
  Type.Object(
    {
      ...publicFields,
      type: Type.Literal(type),
      metadata: MetadataOutput(),
      visibility: BenefitVisibility,
      properties,
      visibility_configurable: Type.Boolean({ readOnly: true }),
    },
    { title, description: `Benefit of type \`${type}\`.` },
  );

export const BenefitCustomProperties = Type.Object(
  { note: Nullable(Type.String(), { description: "Private note shared with customers granted the benefit." }) },
  { title: "BenefitCustomProperties" },
);
export const BenefitCustom = benefit("BenefitCustom", "custom", BenefitCustomProperties);
export type BenefitCustom = Static<typeof BenefitCustom>;

export const BenefitDiscordProperties = Type.Object(
  {
    guild_id: Type.String({ description: "ID of the Discord server." }),
    role_id: Type.String({ description: "ID of the Discord role granted." }),
    kick_member: Type.Boolean({ description: "Whether the member is removed from the server on revocation." }),
    guild_token: Type.String({ readOnly: true }),
  },
  { title: "BenefitDiscordProperties" },
);
export const BenefitDiscord = benefit("BenefitDiscord", "discord", BenefitDiscordProperties);
export type BenefitDiscord = Static<typeof BenefitDiscord>;

export const BenefitGitHubRepositoryProperties = Type.Object(
  {
    repository_owner: Type.String({ description: "Owner of the repository." }),
    repository_name: Type.String({ description: "Name of the repository." }),
    permission: StringEnum(["pull", "triage", "push", "maintain", "admin"] as const, {
      description: "Repository role granted to the customer.",
    }),
  },
  { title: "BenefitGitHubRepositoryProperties" },
);
export const BenefitGitHubRepository = benefit("BenefitGitHubRepository", "github_repository", BenefitGitHubRepositoryProperties);
export type BenefitGitHubRepository = Static<typeof BenefitGitHubRepository>;

export const BenefitDownloadablesProperties = Type.Object(
  {
    archived: UuidRecord(Type.Boolean(), { description: "Archived flag per file ID." }),
    files: Type.Array(Uuid4(), { description: "IDs of the downloadable files." }),
  },
  { title: "BenefitDownloadablesProperties" },
);
export const BenefitDownloadables = benefit("BenefitDownloadables", "downloadables", BenefitDownloadablesProperties);
export type BenefitDownloadables = Static<typeof BenefitDownloadables>;

export const BenefitLicenseKeyExpirationProperties = Type.Object(
  {
    ttl: Type.Integer({ exclusiveMinimum: 0 }),
    timeframe: StringEnum(["year", "month", "day"] as const),
  },
  { title: "BenefitLicenseKeyExpirationProperties" },
);
export const BenefitLicenseKeyActivationProperties = Type.Object(
  {
    limit: Type.Integer(),
    enable_customer_admin: Type.Boolean(),
  },
  { title: "BenefitLicenseKeyActivationProperties" },
);
export const BenefitLicenseKeysProperties = Type.Object(
  {
    prefix: Nullable(Type.String()),
    expires: Nullable(BenefitLicenseKeyExpirationProperties),
    activations: Nullable(BenefitLicenseKeyActivationProperties),
    limit_usage: Nullable(Type.Integer()),
    // An extension, present only when the seller set it, so the reference's shape is unchanged otherwise.
    license_file_ttl_days: Type.Optional(Type.Integer({ description: "An extension of this service: days a signed license file lasts." })),
    heartbeat: Type.Optional(
      Type.Object(
        { interval_seconds: Type.Integer(), grace_seconds: Type.Integer() },
        { description: "An extension of this service: activations silent for interval plus grace are deactivated." },
      ),
    ),
  },
  { title: "BenefitLicenseKeysProperties" },
);
export const BenefitLicenseKeys = benefit("BenefitLicenseKeys", "license_keys", BenefitLicenseKeysProperties);
export type BenefitLicenseKeys = Static<typeof BenefitLicenseKeys>;

export const BenefitMeterCreditProperties = Type.Object(
  {
    units: Type.Integer(),
    rollover: Type.Boolean(),
    meter_id: Uuid4(),
  },
  { title: "BenefitMeterCreditProperties" },
);
export const BenefitMeterCredit = benefit("BenefitMeterCredit", "meter_credit", BenefitMeterCreditProperties);
export type BenefitMeterCredit = Static<typeof BenefitMeterCredit>;

export const BenefitFeatureFlagProperties = Type.Object({}, { title: "BenefitFeatureFlagProperties" });
export const BenefitFeatureFlag = benefit("BenefitFeatureFlag", "feature_flag", BenefitFeatureFlagProperties);
export type BenefitFeatureFlag = Static<typeof BenefitFeatureFlag>;

export const BenefitSlackSharedChannelProperties = Type.Object(
  {
    slack_integration_id: Uuid4({ description: "Slack integration the benefit uses." }),
    channel_name_template: Type.String({
      minLength: 1,
      maxLength: 80,
      description: "Channel name template; may contain customer placeholders.",
    }),
    private: Type.Optional(Type.Boolean({ default: true, description: "Whether the channel is created as private." })),
    welcome_message: Type.Optional(Nullable(Type.String({ maxLength: 4000 }), { description: "Message posted once the channel exists." })),
    archive_on_revoke: Type.Optional(Type.Boolean({ default: true, description: "Whether the channel is archived on revocation." })),
    team_invitees: Type.Optional(Type.Array(Type.String(), { description: "Merchant-side Slack user IDs invited to every channel." })),
  },
  { title: "BenefitSlackSharedChannelProperties" },
);
export const BenefitSlackSharedChannel = benefit("BenefitSlackSharedChannel", "slack_shared_channel", BenefitSlackSharedChannelProperties);
export type BenefitSlackSharedChannel = Static<typeof BenefitSlackSharedChannel>;

/** Full benefit record, discriminated by `type`. */
export const Benefit = Type.Union(
  [
    BenefitCustom,
    BenefitDiscord,
    BenefitGitHubRepository,
    BenefitDownloadables,
    BenefitLicenseKeys,
    BenefitMeterCredit,
    BenefitFeatureFlag,
    BenefitSlackSharedChannel,
  ],
  { title: "Benefit" },
);
export type Benefit = Static<typeof Benefit>;

export const ListResourceBenefit = ListResource(Benefit, { title: "ListResource[Benefit]" });
export type ListResourceBenefit = Static<typeof ListResourceBenefit>;
