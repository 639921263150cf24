import { Type, type Static } from "@sinclair/typebox";
import { Nullable, StringEnum } from "./primitives.ts";

/** ISO 3166-1 alpha-2 codes the interface accepts for billing addresses. */
// A code list, kept dense so that it reads as a table.
// prettier-ignore
export const CountryCodes = [
  "AD", "AE", "AF", "AG", "AI", "AL", "AM", "AO", "AQ", "AR", "AS", "AT", "AU", "AW", "AX", "AZ", "BA", "BB", "BD", "BE",
  "BF", "BG", "BH", "BI", "BJ", "BL", "BM", "BN", "BO", "BQ", "BR", "BS", "BT", "BV", "BW", "BY", "BZ", "CA", "CC", "CD",
  "CF", "CG", "CH", "CI", "CK", "CL", "CM", "CN", "CO", "CR", "CU", "CV", "CW", "CX", "CY", "CZ", "DE", "DJ", "DK", "DM",
  "DO", "DZ", "EC", "EE", "EG", "EH", "ER", "ES", "ET", "FI", "FJ", "FK", "FM", "FO", "FR", "GA", "GB", "GD", "GE", "GF",
  "GG", "GH", "GI", "GL", "GM", "GN", "GP", "GQ", "GR", "GS", "GT", "GU", "GW", "GY", "HK", "HM", "HN", "HR", "HT", "HU",
  "ID", "IE", "IL", "IM", "IN", "IO", "IQ", "IR", "IS", "IT", "JE", "JM", "JO", "JP", "KE", "KG", "KH", "KI", "KM", "KN",
  "KP", "KR", "KW", "KY", "KZ", "LA", "LB", "LC", "LI", "LK", "LR", "LS", "LT", "LU", "LV", "LY", "MA", "MC", "MD", "ME",
  "MF", "MG", "MH", "MK", "ML", "MM", "MN", "MO", "MP", "MQ", "MR", "MS", "MT", "MU", "MV", "MW", "MX", "MY", "MZ", "NA",
  "NC", "NE", "NF", "NG", "NI", "NL", "NO", "NP", "NR", "NU", "NZ", "OM", "PA", "PE", "PF", "PG", "PH", "PK", "PL", "PM",
  "PN", "PR", "PS", "PT", "PW", "PY", "QA", "RE", "RO", "RS", "RU", "RW", "SA", "SB", "SC", "SD", "SE", "SG", "SH", "SI",
  "SJ", "SK", "SL", "SM", "SN", "SO", "SR", "SS", "ST", "SV", "SX", "SY", "SZ", "TC", "TD", "TF", "TG", "TH", "TJ", "TK",
  "TL", "TM", "TN", "TO", "TR", "TT", "TV", "TW", "TZ", "UA", "UG", "UM", "US", "UY", "UZ", "VA", "VC", "VE", "VG", "VI",
  "VN", "VU", "WF", "WS", "YE", "YT", "ZA", "ZM", "ZW",
] as const;
export type CountryCode = (typeof CountryCodes)[number];

export const CountryAlpha2 = StringEnum(CountryCodes, { title: "CountryAlpha2", examples: ["US", "SE", "FR"] });

/** Countries kept on existing records but refused on new input (sanctioned jurisdictions). */
const InputExcludedCountries = ["CU", "IR", "KP", "RU", "SY"] as const;
export type InputCountryCode = Exclude<CountryCode, (typeof InputExcludedCountries)[number]>;
export const InputCountryCodes: readonly InputCountryCode[] = CountryCodes.filter(
  (code): code is InputCountryCode => !(InputExcludedCountries as readonly string[]).includes(code),
);
export const CountryAlpha2Input = StringEnum(InputCountryCodes, { title: "CountryAlpha2Input", examples: ["US", "SE", "FR"] });

const addressFields = <C extends typeof CountryAlpha2 | typeof CountryAlpha2Input>(country: C, maxLength?: number) => {
  const line = () => Type.Optional(Nullable(Type.String(maxLength ? { maxLength } : {})));
  return { line1: line(), line2: line(), postal_code: line(), city: line(), state: line(), country };
};

/** Billing address as emitted; `country` is the only required key. */
export const Address = Type.Object(addressFields(CountryAlpha2), { title: "Address" });
export type Address = Static<typeof Address>;

/** Billing address as accepted: line lengths capped so no client can store unbounded text. */
export const AddressInput = Type.Object(addressFields(CountryAlpha2Input, 256), { title: "AddressInput" });
export type AddressInput = Static<typeof AddressInput>;

/** Stored form: every key present, absent lines as null. */
export interface StoredAddress {
  line1: string | null;
  line2: string | null;
  postal_code: string | null;
  city: string | null;
  state: string | null;
  country: CountryCode;
}

export const toStoredAddress = (input: AddressInput): StoredAddress => ({
  line1: input.line1 ?? null,
  line2: input.line2 ?? null,
  postal_code: input.postal_code ?? null,
  city: input.city ?? null,
  state: input.state ?? null,
  country: input.country,
});
