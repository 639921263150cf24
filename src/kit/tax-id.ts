import { checkVAT, countries, type Country } from "jsvat";
import { RequestValidationError, fieldIssue, type ValidationIssue } from "./errors.ts";
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

/** Stored and emitted as `[normalized number, format]`, the format always a value of the reference's enum. */
export type TaxId = [string, TaxIdFormat];

// A code list, kept dense so that it reads as a table.
// prettier-ignore
const EU_MEMBERS = [
  "AT", "BE", "BG", "CY", "CZ", "DE", "DK", "EE", "ES", "FI", "FR", "GR", "HR", "HU", "IE", "IT", "LT", "LU", "LV",
  "MT", "NL", "PL", "PT", "RO", "SE", "SI", "SK",
] as const;

/**
 * The countries whose numbers are verified (a `jsvat` validator), with the enum format each
 * verified number is stored under. VAT formats keep the country prefix, as VIES writes them;
 * national identifiers (Serbian PIB, Russian INN, Brazilian CNPJ, Andorran NRT) are stored bare.
 * Every other country's numbers are refused: nothing is stored that was not verified.
 */
const VERIFIED_FORMATS: Readonly<Record<string, { format: TaxIdFormat; keepsPrefix: boolean }>> = {
  ...Object.fromEntries(EU_MEMBERS.map((code) => [code, { format: "eu_vat", keepsPrefix: true }])),
  GB: { format: "gb_vat", keepsPrefix: true },
  CH: { format: "ch_vat", keepsPrefix: true },
  NO: { format: "no_vat", keepsPrefix: true },
  RS: { format: "rs_pib", keepsPrefix: false },
  RU: { format: "ru_inn", keepsPrefix: false },
  BR: { format: "br_cnpj", keepsPrefix: false },
  AD: { format: "ad_nrt", keepsPrefix: false },
};

const VALIDATORS = new Map<string, Country>(countries.map((country) => [country.codes[0] ?? "", country]));
// Greece writes its VAT numbers with the EL prefix, not its ISO code.
const vatPrefix = (country: string): string => (country === "GR" ? "EL" : country);

/**
 * A tax ID checked against the buyer's country: separators removed, upper case, verified by the
 * country's validator. `null` when it is invalid or the country's numbers cannot be verified.
 */
export function parseTaxId(raw: string, country: string): TaxId | null {
  const target = VERIFIED_FORMATS[country];
  const validator = VALIDATORS.get(country);
  if (!target || !validator) return null;
  const compact = raw.toUpperCase().replace(/[\s.\-/]/g, "");
  const prefix = vatPrefix(country);
  const prefixed = compact.startsWith(prefix) || compact.startsWith(country) ? compact : `${prefix}${compact}`;
  const result = checkVAT(prefixed, [validator]);
  if (!result.isValid) return null;
  const value = result.value ?? prefixed;
  const number = target.keepsPrefix ? value : value.replace(/^[A-Z]{2}/, "");
  return [number, target.format];
}

/** Whether a number is a VAT number verified for an EU member state (what reverse charge needs). */
export const isVerifiedEuVat = (raw: string, country: string): boolean => parseTaxId(raw, country)?.[1] === "eu_vat";

/** Where a request carries the tax ID and the country it is checked against, for the 422's `loc`. */
export interface TaxIdFields {
  taxId: (string | number)[];
  country: (string | number)[];
}

/** The parsed tax ID, or the 422 entry that refuses it: no country to check against, or invalid. */
export function checkTaxId(raw: string, country: string | null | undefined, fields: TaxIdFields): TaxId | ValidationIssue {
  if (!country) return fieldIssue(fields.country, "Country is required to validate tax ID.", null, "missing");
  return parseTaxId(raw, country) ?? fieldIssue(fields.taxId, "Invalid tax ID.", raw, "invalid");
}

/** `checkTaxId` for one-field operations: the 422 is thrown at once. */
export function requireTaxId(raw: string, country: string | null | undefined, fields: TaxIdFields): TaxId {
  const checked = checkTaxId(raw, country, fields);
  if (Array.isArray(checked)) return checked;
  throw new RequestValidationError([checked]);
}
