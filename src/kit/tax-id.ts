import { checkVAT, countries } from "jsvat";
import { StringEnum } from "./schema.ts";

// A code list, kept dense so that it reads as a table.
// prettier-ignore
export const TaxIdFormatValues = [
  "ad_nrt", "ae_trn", "ar_cuit", "au_abn", "au_arn", "bg_uic", "bh_vat", "bo_tin", "br_cnpj", "br_cpf", "ca_bn",
  "ca_gst_hst", "ca_pst_bc", "ca_pst_mb", "ca_pst_sk", "ca_qst", "ch_uid", "ch_vat", "cl_tin", "cn_tin", "co_nit",
  "cr_tin", "de_stn", "do_rcn", "ec_ruc", "eg_tin", "es_cif", "eu_oss_vat", "eu_vat", "gb_vat", "ge_vat", "hk_br",
  "hr_oib", "hu_tin", "id_npwp", "il_vat", "in_gst", "is_vat", "jp_cn", "jp_rn", "jp_trn", "ke_pin", "kr_brn",
  "kz_bin", "li_uid", "mk_vat", "mx_rfc", "my_frp", "my_itn", "my_sst", "ng_tin", "no_vat", "no_voec", "nz_gst",
  "om_vat", "pe_ruc", "ph_tin", "ro_tin", "rs_pib", "ru_inn", "ru_kpp", "sa_vat", "sg_gst", "sg_uen", "si_tin",
  "sv_nit", "th_vat", "tr_tin", "tw_vat", "ua_vat", "us_ein", "uy_ruc", "ve_rif", "vn_tin", "za_vat", "mu_tan",
] as const;
export type TaxIdFormat = (typeof TaxIdFormatValues)[number];
export const TaxIdFormat = StringEnum(TaxIdFormatValues, { title: "TaxIDFormat" });

/** Stored and emitted as `[normalized number, format]`. */
export type TaxId = [string, TaxIdFormat];

// A code list, kept dense so that it reads as a table.
// prettier-ignore
const EU_COUNTRIES = new Set([
  "AT", "BE", "BG", "CY", "CZ", "DE", "DK", "EE", "ES", "FI", "FR", "GR", "HR", "HU", "IE", "IT", "LT", "LU", "LV",
  "MT", "NL", "PL", "PT", "RO", "SE", "SI", "SK",
]);
// Greece writes its VAT numbers with the EL prefix, not its ISO code.
const vatPrefix = (country: string): string => (country === "GR" ? "EL" : country);

/**
 * A tax ID checked against the customer's country: EU VAT numbers (checksum and format, with or
 * without the country prefix) and GB VAT. Anything else is refused as invalid rather than stored
 * unverified; `null` means invalid.
 */
export function parseTaxId(raw: string, country: string): TaxId | null {
  const compact = raw.replace(/[\s.-]/g, "").toUpperCase();
  if (!EU_COUNTRIES.has(country) && country !== "GB") return null;
  const prefix = vatPrefix(country);
  const candidate = compact.startsWith(prefix) ? compact : `${prefix}${compact}`;
  const result = checkVAT(candidate, countries);
  if (!result.isValid || result.country?.isoCode.short !== country) return null;
  return [result.value ?? candidate, country === "GB" ? "gb_vat" : "eu_vat"];
}
