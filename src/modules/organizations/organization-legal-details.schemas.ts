import { Type, type Static } from "@sinclair/typebox";
import { Address, AddressInput, CountryAlpha2, CountryAlpha2Input } from "../../schema/address.ts";
import { Nullable, StringEnum } from "../../schema/primitives.ts";

const TaxRegistrationFields = {
  country: CountryAlpha2Input,
  state: Type.Optional(
    Nullable(Type.String({ minLength: 1, maxLength: 10 }), {
      description:
        "The state or province (ISO 3166-2, `CA-QC`) for a registration of its own (Canada's QST and PSTs); null for a country-wide one.",
    }),
  ),
  scheme: Type.Optional(
    StringEnum(["standard", "eu_oss"] as const, {
      title: "OrganizationTaxRegistrationScheme",
      default: "standard",
      description:
        "`standard`: the registration of its country (or state); `eu_oss`: the EU One-Stop Shop registration held in `country` (a member state), collecting the VAT of every EU member state.",
    }),
  ),
  number: Nullable(Type.String({ minLength: 1, maxLength: 64 }), {
    description: "The registration number, as the documents print it; null when not recorded (nothing printed).",
  }),
};

/** One place the organization is registered to collect tax. */
export const OrganizationTaxRegistration = Type.Object(
  {
    ...TaxRegistrationFields,
    state: Nullable(TaxRegistrationFields.state),
    scheme: StringEnum(["standard", "eu_oss"] as const, { title: "OrganizationTaxRegistrationScheme" }),
    country: CountryAlpha2,
  },
  {
    title: "OrganizationTaxRegistration",
    description: "Tax is collected only from buyers a registration covers; elsewhere it is 0.",
  },
);

/**
 * GET and PATCH /v1/organizations/{id}/legal-details, an extension of this service (the reference
 * has no place for them): what the organization's invoices and receipts print about the seller.
 */
export const OrganizationLegalDetails = Type.Object(
  {
    registered_name: Nullable(Type.String(), {
      description: "The registered name printed on documents (set at creation from `legal_entity.registered_name`); null prints `name`.",
    }),
    address: Nullable(Address, { description: "The seller's postal address printed on documents." }),
    tax_registrations: Type.Array(OrganizationTaxRegistration, {
      description: "Where the organization collects tax (only there); the numbers are printed on documents.",
    }),
  },
  { title: "OrganizationLegalDetails" },
);
export type OrganizationLegalDetails = Static<typeof OrganizationLegalDetails>;

/** Body of PATCH /v1/organizations/{id}/legal-details: only the fields sent change; null clears. */
export const OrganizationLegalDetailsUpdate = Type.Object(
  {
    registered_name: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 256 }))),
    address: Type.Optional(Nullable(AddressInput)),
    tax_registrations: Type.Optional(
      Type.Array(Type.Object(TaxRegistrationFields, { title: "OrganizationTaxRegistrationInput" }), {
        maxItems: 60,
        description: "Replaces every registration: tax is collected from the buyers these cover, from the next price computed.",
      }),
    ),
  },
  { title: "OrganizationLegalDetailsUpdate" },
);
export type OrganizationLegalDetailsUpdate = Static<typeof OrganizationLegalDetailsUpdate>;
