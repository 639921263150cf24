import { Type, type Static } from "@sinclair/typebox";
import { MetadataInput, Nullable, StringEnum, Uuid4 } from "../../schema/primitives.ts";
import { BenefitVisibility } from "./benefits.schemas.ts";

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
  },
  { title: "BenefitLicenseKeysCreateProperties" },
);

export const BenefitLicenseKeysCreate = Type.Object(
  { ...benefitCreateFields, type: Type.Literal("license_keys"), properties: BenefitLicenseKeysCreateProperties },
  { title: "BenefitLicenseKeysCreate" },
);

export const BenefitCustomCreate = Type.Object(
  {
    ...benefitCreateFields,
    type: Type.Literal("custom"),
    properties: Type.Object(
      { note: Type.Optional(Nullable(Type.String({ maxLength: 10_000 }))) },
      { title: "BenefitCustomCreateProperties" },
    ),
  },
  { title: "BenefitCustomCreate" },
);

export const BenefitMeterCreditCreate = Type.Object(
  {
    ...benefitCreateFields,
    type: Type.Literal("meter_credit"),
    properties: Type.Object(
      {
        units: Int32Positive,
        rollover: Type.Boolean({ description: "Whether unused units carry over to the next cycle." }),
        meter_id: Uuid4({ description: "The meter credited." }),
      },
      { title: "BenefitMeterCreditCreateProperties" },
    ),
  },
  { title: "BenefitMeterCreditCreate" },
);

/** Benefit types this service can create; the others need integrations it does not run. */
export const BenefitCreate = Type.Union([BenefitCustomCreate, BenefitLicenseKeysCreate, BenefitMeterCreditCreate], {
  title: "BenefitCreate",
});
export type BenefitCreate = Static<typeof BenefitCreate>;
