import { Type, type Static } from "@sinclair/typebox";
import { Address } from "../../kit/address.ts";
import { DateTime, MetadataOutput, Nullable, StringEnum, TimestampedFields, Uuid4 } from "../../kit/schema.ts";

/** Tax ID formats the interface knows (Stripe's list). */
export const TaxIdFormatValues = [
  "ad_nrt", "ae_trn", "ar_cuit", "au_abn", "au_arn", "bg_uic", "bh_vat", "bo_tin", "br_cnpj", "br_cpf", "ca_bn",
  "ca_gst_hst", "ca_pst_bc", "ca_pst_mb", "ca_pst_sk", "ca_qst", "ch_uid", "ch_vat", "cl_tin", "cn_tin", "co_nit",
  "cr_tin", "de_stn", "do_rcn", "ec_ruc", "eg_tin", "es_cif", "eu_oss_vat", "eu_vat", "gb_vat", "ge_vat", "hk_br",
  "hr_oib", "hu_tin", "id_npwp", "il_vat", "in_gst", "is_vat", "jp_cn", "jp_rn", "jp_trn", "ke_pin", "kr_brn", "kz_bin",
  "li_uid", "mk_vat", "mx_rfc", "my_frp", "my_itn", "my_sst", "ng_tin", "no_vat", "no_voec", "nz_gst", "om_vat",
  "pe_ruc", "ph_tin", "ro_tin", "rs_pib", "ru_inn", "ru_kpp", "sa_vat", "sg_gst", "sg_uen", "si_tin", "sv_nit",
  "th_vat", "tr_tin", "tw_vat", "ua_vat", "us_ein", "uy_ruc", "ve_rif", "vn_tin", "za_vat", "mu_tan",
] as const;
export type TaxIdFormat = (typeof TaxIdFormatValues)[number];
export const TaxIdFormat = StringEnum(TaxIdFormatValues, { title: "TaxIDFormat", description: "Supported tax ID formats." });

// Keys the reference marks optional are still always emitted (see the mapper).
const customerFields = {
  id: Uuid4({ description: "The ID of the customer." }),
  ...TimestampedFields,
  metadata: MetadataOutput(),
  external_id: Type.Optional(Nullable(Type.String(), { description: "The ID of the customer in your system; unique within the organization." })),
  email_verified: Type.Boolean({ description: "Whether the customer email address is verified." }),
  name: Nullable(Type.String(), { description: "The name of the customer." }),
  billing_name: Nullable(Type.String(), { description: "The name on the customer's invoices; the customer name when not set." }),
  billing_address: Nullable(Address),
  tax_id: Nullable(Type.Tuple([Type.String(), TaxIdFormat]), { description: "The tax ID and its format." }),
  locale: Type.Optional(Nullable(Type.String())),
  organization_id: Uuid4({ description: "The ID of the organization owning the customer." }),
  default_payment_method_id: Type.Optional(Nullable(Uuid4(), { description: "The ID of the customer's default payment method, if any." })),
  deleted_at: Nullable(DateTime(), { description: "When the customer was soft deleted." }),
  first_user_event_at: Nullable(DateTime(), { description: "Timestamp of the first event ingested for this customer." }),
  avatar_url: Nullable(Type.String()),
};

export const CustomerIndividual = Type.Object(
  {
    ...customerFields,
    email: Type.String({ description: "The email address of the customer; unique within the organization." }),
    type: Type.Literal("individual", { description: "The type of customer." }),
  },
  { title: "CustomerIndividual" },
);

export const CustomerTeam = Type.Object(
  {
    ...customerFields,
    email: Type.Optional(Nullable(Type.String(), { description: "The email address of the customer; unique within the organization." })),
    type: Type.Literal("team", { description: "The type of customer. Team customers can have multiple members." }),
  },
  { title: "CustomerTeam" },
);

export const Customer = Type.Union([CustomerIndividual, CustomerTeam], { title: "Customer" });
export type Customer = Static<typeof Customer>;
