import { Type, type Static } from "@sinclair/typebox";
import { ListResource, OneOrMany, PaginationQuery } from "../../schema/pagination.ts";
import { DateTime, IdField, MetadataInput, Nullable, StringEnum, TimestampedFields, Uuid4 } from "../../schema/primitives.ts";
import { CustomerTeam, CustomerType } from "../customers/customers.schemas.ts";

export const LicenseKeyStatusValues = ["granted", "revoked", "disabled"] as const;
export const LicenseKeyStatus = StringEnum(LicenseKeyStatusValues, { title: "LicenseKeyStatus" });
export type LicenseKeyStatus = Static<typeof LicenseKeyStatus>;

// The reference's customer embedded in a key: the customer fields with `type` not narrowed to one branch.
export const LicenseKeyCustomer = Type.Object({ ...CustomerTeam.properties, type: CustomerType }, { title: "LicenseKeyCustomer" });

const ReadMeta = Type.Record(Type.String(), Type.Union([Type.String(), Type.Integer(), Type.Number(), Type.Boolean()]));

const licenseKeyFields = {
  ...IdField,
  ...TimestampedFields,
  organization_id: Uuid4(),
  customer_id: Uuid4(),
  customer: LicenseKeyCustomer,
  benefit_id: Uuid4({ description: "The benefit ID." }),
  key: Type.String(),
  display_key: Type.String(),
  status: LicenseKeyStatus,
  limit_activations: Nullable(Type.Integer()),
  usage: Type.Integer(),
  limit_usage: Nullable(Type.Integer()),
  validations: Type.Integer(),
  last_validated_at: Nullable(DateTime()),
  expires_at: Nullable(DateTime()),
};

export const LicenseKeyRead = Type.Object(licenseKeyFields, { title: "LicenseKeyRead" });
export type LicenseKeyRead = Static<typeof LicenseKeyRead>;

export const LicenseKeyActivationBase = Type.Object(
  {
    id: Uuid4(),
    license_key_id: Uuid4(),
    label: Type.String(),
    meta: ReadMeta,
    created_at: DateTime(),
    modified_at: Nullable(DateTime()),
  },
  { title: "LicenseKeyActivationBase" },
);
export type LicenseKeyActivationBase = Static<typeof LicenseKeyActivationBase>;

export const LicenseKeyActivationRead = Type.Object(
  { ...LicenseKeyActivationBase.properties, license_key: LicenseKeyRead },
  { title: "LicenseKeyActivationRead" },
);
export type LicenseKeyActivationRead = Static<typeof LicenseKeyActivationRead>;

export const ValidatedLicenseKey = Type.Object(
  { ...licenseKeyFields, activation: Type.Optional(Nullable(LicenseKeyActivationBase)) },
  { title: "ValidatedLicenseKey" },
);
export type ValidatedLicenseKey = Static<typeof ValidatedLicenseKey>;

export const LicenseKeyWithActivations = Type.Object(
  { ...licenseKeyFields, activations: Type.Array(LicenseKeyActivationBase) },
  { title: "LicenseKeyWithActivations" },
);
export type LicenseKeyWithActivations = Static<typeof LicenseKeyWithActivations>;

export const ListResourceLicenseKeyRead = ListResource(LicenseKeyRead, { title: "ListResource[LicenseKeyRead]" });
export type ListResourceLicenseKeyRead = Static<typeof ListResourceLicenseKeyRead>;

// Keys are UUIDs behind a short prefix; the bound only keeps junk out of the lookup.
const KEY_MAX = 256;
const LABEL_MAX = 256;
const keyFields = {
  key: Type.String({ minLength: 1, maxLength: KEY_MAX }),
  organization_id: Uuid4(),
};

export const LicenseKeyActivate = Type.Object(
  {
    ...keyFields,
    label: Type.String({ minLength: 1, maxLength: LABEL_MAX }),
    conditions: Type.Optional(MetadataInput({ description: "Values a validation of this activation must present." })),
    meta: Type.Optional(MetadataInput({ description: "Free key-value data stored with the activation." })),
  },
  { title: "LicenseKeyActivate" },
);
export type LicenseKeyActivate = Static<typeof LicenseKeyActivate>;

export const LicenseKeyValidate = Type.Object(
  {
    ...keyFields,
    activation_id: Type.Optional(Nullable(Uuid4())),
    benefit_id: Type.Optional(Nullable(Uuid4({ description: "The benefit ID." }))),
    customer_id: Type.Optional(Nullable(Uuid4())),
    increment_usage: Type.Optional(Nullable(Type.Integer({ minimum: 0, maximum: 2_147_483_647 }))),
    conditions: Type.Optional(MetadataInput()),
  },
  { title: "LicenseKeyValidate" },
);
export type LicenseKeyValidate = Static<typeof LicenseKeyValidate>;

export const LicenseKeyDeactivate = Type.Object({ ...keyFields, activation_id: Uuid4() }, { title: "LicenseKeyDeactivate" });
export type LicenseKeyDeactivate = Static<typeof LicenseKeyDeactivate>;

export const LicenseKeyListQuery = Type.Object({
  organization_id: OneOrMany(Uuid4(), "Filter by organization ID."),
  benefit_id: OneOrMany(Uuid4(), "Filter by benefit ID."),
  status: OneOrMany(LicenseKeyStatus, "Filter by status.", { maxItems: 3 }),
  // An extension (docs/decisions.md, "License keys by customer"): the SDK never sends it.
  customer_id: OneOrMany(Uuid4(), "Filter by customer ID. An extension of this service (not in the 2026-04 reference)."),
  ...PaginationQuery,
});
export type LicenseKeyListQuery = Static<typeof LicenseKeyListQuery>;

export const PortalLicenseKeyListQuery = Type.Object({
  benefit_id: Type.Optional(Uuid4({ description: "Filter by a specific benefit." })),
  ...PaginationQuery,
});
export type PortalLicenseKeyListQuery = Static<typeof PortalLicenseKeyListQuery>;

const Int32 = { minimum: -2_147_483_648, maximum: 2_147_483_647 };
const PositiveLimit = Nullable(Type.Integer({ exclusiveMinimum: 0, maximum: Int32.maximum }));

/** Only the keys sent apply (no default usage, unlike the reference's schema); null removes a limit or the expiry. */
export const LicenseKeyUpdate = Type.Object(
  {
    status: Type.Optional(Nullable(LicenseKeyStatus)),
    usage: Type.Optional(Type.Integer({ ...Int32, description: "Usage counted so far, set as given." })),
    limit_activations: Type.Optional(PositiveLimit),
    limit_usage: Type.Optional(PositiveLimit),
    expires_at: Type.Optional(Nullable(DateTime())),
  },
  { title: "LicenseKeyUpdate" },
);
export type LicenseKeyUpdate = Static<typeof LicenseKeyUpdate>;
