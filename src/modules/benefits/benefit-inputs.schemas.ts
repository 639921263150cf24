import { Type, type Static, type TSchema } from "@sinclair/typebox";
import { CATALOG_SORTING, MetadataQuery, OneOrMany, PaginationQuery, SortingQuery } from "../../schema/pagination.ts";
import { MetadataInput, Nullable, StringEnum, Uuid4 } from "../../schema/primitives.ts";
import { UuidRecord } from "../../schema/extra-primitives.ts";
import { BenefitType, BenefitVisibility } from "./benefits.schemas.ts";

const Int32Positive = Type.Integer({ exclusiveMinimum: 0, maximum: 2_147_483_647 });

const benefitCreateFields = {
  metadata: Type.Optional(MetadataInput()),
  description: Type.String({ minLength: 3, maxLength: 42, description: "Description shown to customers." }),
  organization_id: Type.Optional(Nullable(Uuid4({ description: "Owning organization; required with a personal token." }))),
  visibility: Type.Optional(Nullable(BenefitVisibility)),
};

export const BenefitLicenseKeyExpirationInput = Type.Object(
  { ttl: Int32Positive, timeframe: StringEnum(["year", "month", "day"] as const) },
  { title: "BenefitLicenseKeyExpirationProperties" },
);

export const BenefitLicenseKeysCreateProperties = Type.Object(
  {
    prefix: Type.Optional(Nullable(Type.String({ maxLength: 64, description: "Text put in front of every key." }))),
    expires: Type.Optional(Nullable(BenefitLicenseKeyExpirationInput)),
    activations: Type.Optional(
      Nullable(
        Type.Object(
          { limit: Int32Positive, enable_customer_admin: Type.Boolean() },
          { title: "BenefitLicenseKeyActivationCreateProperties" },
        ),
      ),
    ),
    limit_usage: Type.Optional(Nullable(Int32Positive)),
    license_file_ttl_days: Type.Optional(
      Nullable(
        Type.Integer({
          minimum: 1,
          maximum: 365,
          description: "An extension of this service: days a signed license file lasts before the app refreshes it online; null: 30.",
        }),
      ),
    ),
    heartbeat: Type.Optional(
      Nullable(
        Type.Object(
          {
            interval_seconds: Type.Integer({ minimum: 60, maximum: 2_592_000, description: "Seconds between an activation's heartbeats." }),
            grace_seconds: Type.Integer({ minimum: 0, maximum: 2_592_000, description: "Silence tolerated past the interval." }),
          },
          {
            title: "BenefitLicenseKeyHeartbeatProperties",
            description: "An extension of this service: an activation silent for interval plus grace is deactivated; null: never.",
          },
        ),
      ),
    ),
  },
  { title: "BenefitLicenseKeysCreateProperties" },
);

export const BenefitLicenseKeysCreate = Type.Object(
  { ...benefitCreateFields, type: Type.Literal("license_keys"), properties: BenefitLicenseKeysCreateProperties },
  { title: "BenefitLicenseKeysCreate" },
);

const BenefitCustomCreateProperties = Type.Object(
  { note: Type.Optional(Nullable(Type.String({ maxLength: 10_000 }))) },
  { title: "BenefitCustomCreateProperties" },
);

export const BenefitCustomCreate = Type.Object(
  { ...benefitCreateFields, type: Type.Literal("custom"), properties: BenefitCustomCreateProperties },
  { title: "BenefitCustomCreate" },
);

const BenefitMeterCreditCreateProperties = Type.Object(
  {
    units: Int32Positive,
    rollover: Type.Boolean({ description: "Whether unused units carry over to the next cycle." }),
    meter_id: Uuid4({ description: "The meter credited." }),
  },
  { title: "BenefitMeterCreditCreateProperties" },
);

export const BenefitMeterCreditCreate = Type.Object(
  { ...benefitCreateFields, type: Type.Literal("meter_credit"), properties: BenefitMeterCreditCreateProperties },
  { title: "BenefitMeterCreditCreate" },
);

const BenefitDownloadablesCreateProperties = Type.Object(
  {
    archived: Type.Optional(
      UuidRecord(Type.Boolean(), { description: "Archived flag per file ID: archived files are no longer granted." }),
    ),
    files: Type.Array(Uuid4(), { minItems: 1, maxItems: 100, description: "IDs of the files, in the order customers see them." }),
  },
  { title: "BenefitDownloadablesCreateProperties" },
);

export const BenefitDownloadablesCreate = Type.Object(
  { ...benefitCreateFields, type: Type.Literal("downloadables"), properties: BenefitDownloadablesCreateProperties },
  { title: "BenefitDownloadablesCreate" },
);

/** Benefit types this service can create; the others need integrations it does not run. */
export const BenefitCreate = Type.Union(
  [BenefitCustomCreate, BenefitLicenseKeysCreate, BenefitMeterCreditCreate, BenefitDownloadablesCreate],
  {
    title: "BenefitCreate",
  },
);
export type BenefitCreate = Static<typeof BenefitCreate>;

/** An update's common fields: each one absent (or null) leaves the benefit's value as it is. */
const benefitUpdateFields = {
  metadata: Type.Optional(MetadataInput()),
  description: Type.Optional(Nullable(Type.String({ minLength: 3, maxLength: 42, description: "Description shown to customers." }))),
  visibility: Type.Optional(Nullable(BenefitVisibility)),
};

/** `type` names the benefit's own type (it never changes); `properties` replace the stored ones whole. */
const benefitUpdate = <K extends string, P extends TSchema>(title: string, type: K, properties: P) =>
  Type.Object({ ...benefitUpdateFields, type: Type.Literal(type), properties: Type.Optional(Nullable(properties)) }, { title });

export const BenefitCustomUpdate = benefitUpdate("BenefitCustomUpdate", "custom", BenefitCustomCreateProperties);
export const BenefitLicenseKeysUpdate = benefitUpdate("BenefitLicenseKeysUpdate", "license_keys", BenefitLicenseKeysCreateProperties);
export const BenefitMeterCreditUpdate = benefitUpdate("BenefitMeterCreditUpdate", "meter_credit", BenefitMeterCreditCreateProperties);
export const BenefitDownloadablesUpdate = benefitUpdate(
  "BenefitDownloadablesUpdate",
  "downloadables",
  BenefitDownloadablesCreateProperties,
);

/** Updates of the benefit types this service creates (a body of another type could match no benefit here). */
export const BenefitUpdate = Type.Union(
  [BenefitCustomUpdate, BenefitLicenseKeysUpdate, BenefitMeterCreditUpdate, BenefitDownloadablesUpdate],
  {
    title: "Benefit Update",
  },
);
export type BenefitUpdate = Static<typeof BenefitUpdate>;

/** `user_order` is the order of the `id` filter's values (creation order without one), as the hosted service sorts. */
export const BenefitSortKeys = ["created_at", "description", "type", "user_order"] as const;
export type BenefitSortKey = (typeof BenefitSortKeys)[number];

export const BenefitListQuery = Type.Object({
  organization_id: OneOrMany(Uuid4(), "Filter by organization ID.", { listOnly: true }),
  type: OneOrMany(BenefitType, "Filter by benefit type.", { listOnly: true }),
  id: OneOrMany(Uuid4(), "Filter by benefit IDs.", { listOnly: true }),
  exclude_id: OneOrMany(Uuid4(), "Exclude benefits with these IDs.", { listOnly: true }),
  query: Type.Optional(Type.String({ maxLength: 256, description: "Filter by description." })),
  ...PaginationQuery,
  sorting: SortingQuery(BenefitSortKeys, ["-created_at"], CATALOG_SORTING, { title: "BenefitSortProperty" }),
  metadata: MetadataQuery(),
});
export type BenefitListQuery = Static<typeof BenefitListQuery>;
