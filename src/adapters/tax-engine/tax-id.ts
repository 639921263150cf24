import * as jsvat from "jsvat";
import { RequestValidationError, fieldIssue, type ValidationIssue } from "../../http/errors.ts";
import { StringEnum } from "../../schema/primitives.ts";
import { isEuMember } from "./tax.rates.ts";

/** The reference's tax-id formats: every tax ID a customer or an order keeps carries one of them. */
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

/** How the numbers of one country are checked and kept. */
interface Scheme {
  validator: jsvat.Country;
  /** What jsvat expects before the number. */
  prefix: string;
  /** Whether the prefix is part of the identifier itself (VAT numbers) or only jsvat's convention. */
  keepsPrefix: boolean;
  /** The format of a number the validator accepted (without prefix); null when the enum has no name for it. */
  format: (number: string) => TaxIdFormat | null;
}

const euVat = (validator: jsvat.Country): [string, Scheme] => {
  const country = validator.codes[0] ?? "";
  // Greece writes its VAT numbers with the EL prefix, not its ISO code.
  return [country, { validator, prefix: country === "GR" ? "EL" : country, keepsPrefix: true, format: () => "eu_vat" }];
};

/**
 * Every country a validator exists for, mapped to the reference's format of what that validator
 * checks. jsvat's `EU` scheme (non-union OSS numbers) is left out: no address has that country.
 */
const SCHEMES = new Map<string, Scheme>([
  ...jsvat.countries.filter((validator) => isEuMember(validator.codes[0] ?? "")).map(euVat),
  ["GB", { validator: jsvat.unitedKingdom, prefix: "GB", keepsPrefix: true, format: () => "gb_vat" }],
  // A Swiss UID with the MWST/TVA/IVA suffix is the business's VAT number; without it, only its UID.
  [
    "CH",
    { validator: jsvat.switzerland, prefix: "CHE", keepsPrefix: true, format: (n) => (/(MWST|TVA|IVA)$/.test(n) ? "ch_vat" : "ch_uid") },
  ],
  // A Norwegian VAT number is the organisation number followed by MVA; a bare organisation number has no format.
  ["NO", { validator: jsvat.norway, prefix: "NO", keepsPrefix: false, format: (n) => (n.endsWith("MVA") ? "no_vat" : null) }],
  ["RS", { validator: jsvat.serbia, prefix: "RS", keepsPrefix: false, format: () => "rs_pib" }],
  ["RU", { validator: jsvat.russia, prefix: "RU", keepsPrefix: false, format: () => "ru_inn" }],
  // jsvat's Brazilian check is the company number (CNPJ), not the individual one (CPF).
  ["BR", { validator: jsvat.brazil, prefix: "BR", keepsPrefix: false, format: () => "br_cnpj" }],
  ["AD", { validator: jsvat.andorra, prefix: "AD", keepsPrefix: false, format: () => "ad_nrt" }],
]);

interface Reading {
  value: string;
  /** Null when the number cannot be verified as an identifier of the reference's enum. */
  format: TaxIdFormat | null;
}

/** Null when the country's validator refuses the number. */
function read(raw: string, country: string): Reading | null {
  const compact = raw.toUpperCase().replace(/[\s.\-/]/g, "");
  const scheme = SCHEMES.get(country);
  if (!scheme) return { value: compact, format: null };
  const candidate = compact.startsWith(scheme.prefix) ? compact : `${scheme.prefix}${compact}`;
  if (!jsvat.checkVAT(candidate, [scheme.validator]).isValid) return null;
  const number = candidate.slice(scheme.prefix.length);
  const format = scheme.format(number);
  if (format === null) return { value: compact, format: null };
  return { value: scheme.keepsPrefix ? candidate : number, format };
}

export interface TaxIdCheck {
  /** Normalized number: the identifier's own form when verified, else the input without separators. */
  value: string;
  /** Whether it was verified as an identifier of the reference's enum for the country. */
  verified: boolean;
}

/**
 * A tax ID read against `country`: null when the country's validator refuses it; a number that
 * cannot be verified (no validator, or no format for what it is) comes back unverified.
 */
export function checkTaxId(raw: string, country: string): TaxIdCheck | null {
  const reading = read(raw, country);
  return reading && { value: reading.value, verified: reading.format !== null };
}

/** The tax ID as customers and orders keep it: only a verified number, with its format. */
export function parseTaxId(raw: string, country: string): TaxId | null {
  const reading = read(raw, country);
  return reading?.format ? [reading.value, reading.format] : null;
}

/** The 422 entry for a tax ID sent without a country to check it against. */
export const taxIdNeedsCountryIssue = (loc: (string | number)[]): ValidationIssue =>
  fieldIssue(loc, "Country is required to validate tax ID.", null, "missing");

/** The 422 entry for a tax ID that is refused, or cannot be verified where only a verified one is kept. */
export const invalidTaxIdIssue = (loc: (string | number)[], input: unknown): ValidationIssue =>
  fieldIssue(loc, "Invalid tax ID.", input, "invalid");

/**
 * For routes whose field is the `[number, format]` pair (customers, the portal): the verified tax
 * ID, else the 422 (no country to check against, refused, or not verifiable).
 */
export function requireTaxId(
  raw: string,
  country: string | null | undefined,
  locs: { taxId: (string | number)[]; country: (string | number)[] },
): TaxId {
  if (!country) throw new RequestValidationError([taxIdNeedsCountryIssue(locs.country)]);
  const parsed = parseTaxId(raw, country);
  if (!parsed) throw new RequestValidationError([invalidTaxIdIssue(locs.taxId, raw)]);
  return parsed;
}
