import { Type, type Static } from "@sinclair/typebox";
import { Nullable, StringEnum } from "../../kit/schema.ts";

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
