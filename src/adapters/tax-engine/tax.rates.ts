/**
 * The rate table: the taxes a seller of digital services collects from a buyer abroad once it is
 * registered there, each with its rates by date and where they were taken from.
 *
 * Conventions (docs/decisions.md, "Tax rates by date"):
 * - A rate applies from its date (UTC) until the next one of the same rule. The first date is when
 *   the rate started to apply to digital services sold from abroad (2015-01-01 in the EU, when B2C
 *   services became taxed where the buyer is), or when the current rate began, if later.
 * - Rates are basis points; Québec's QST (9.975 %) is the one written with a half basis point.
 * - A rule is collected under one registration (`registration`): a country-wide one (`state` null)
 *   or a state's own. Under one registration, a state's rule replaces the country's (Canada's HST
 *   in place of its GST); rules of different registrations add up (GST and Québec's QST).
 * - Standard rates only: reduced rates (e-books, newspapers) and US sales tax are not in the table.
 */

/** Where a rule's rates come from. */
export interface RateSource {
  name: string;
  url: string;
}

// Official publications; each rule names one.
export const RATE_SOURCES = {
  eu: {
    name: "European Commission, Taxes in Europe Database (standard VAT rates by member state, with history)",
    url: "https://ec.europa.eu/taxation_customs/tedb/",
  },
  gb: { name: "HMRC, VAT rates", url: "https://www.gov.uk/guidance/rates-of-vat-on-different-goods-and-services" },
  no: {
    name: "Skatteetaten, VAT on electronic services (VOEC)",
    url: "https://www.skatteetaten.no/en/business-and-organisation/vat-and-duties/vat/foreign-companies/voec/",
  },
  ch: {
    name: "Swiss Federal Tax Administration, VAT rates (Switzerland and Liechtenstein)",
    url: "https://www.estv.admin.ch/estv/en/home/value-added-tax/vat-rates-switzerland.html",
  },
  is: { name: "Iceland Revenue and Customs, VAT", url: "https://www.skatturinn.is/english/companies/value-added-tax/" },
  rs: { name: "Tax Administration of Serbia, VAT", url: "https://www.purs.gov.rs/" },
  tr: { name: "Turkish Revenue Administration, VAT on electronic services", url: "https://www.gib.gov.tr/" },
  au: {
    name: "Australian Taxation Office, GST on imported services and digital products",
    url: "https://www.ato.gov.au/businesses-and-organisations/gst-excise-and-indirect-taxes/gst",
  },
  nz: { name: "Inland Revenue, GST on remote services", url: "https://www.ird.govt.nz/gst" },
  jp: {
    name: "National Tax Agency, consumption tax on cross-border electronic services",
    url: "https://www.nta.go.jp/english/taxes/consumption_tax/",
  },
  kr: { name: "National Tax Service, VAT on electronic services by foreign providers", url: "https://www.nts.go.kr/english/" },
  sg: {
    name: "IRAS, GST on imported digital services (overseas vendor registration)",
    url: "https://www.iras.gov.sg/taxes/goods-services-tax-(gst)",
  },
  in: { name: "CBIC, IGST on online information and database access or retrieval (OIDAR) services", url: "https://cbic-gst.gov.in/" },
  my: { name: "Royal Malaysian Customs, service tax on digital services by foreign providers", url: "https://mysst.customs.gov.my/" },
  th: { name: "Revenue Department, VAT on e-services", url: "https://www.rd.go.th/" },
  tw: { name: "Ministry of Finance, business tax on cross-border e-services", url: "https://www.etax.nat.gov.tw/" },
  za: { name: "SARS, VAT on electronic services", url: "https://www.sars.gov.za/types-of-tax/value-added-tax/" },
  sa: { name: "ZATCA, VAT", url: "https://zatca.gov.sa/en/RulesRegulations/Taxes/Pages/default.aspx" },
  ae: { name: "UAE Federal Tax Authority, VAT", url: "https://tax.gov.ae/en/taxes/vat.aspx" },
  bh: { name: "National Bureau for Revenue, VAT", url: "https://www.nbr.gov.bh/vat" },
  mx: { name: "SAT, IVA on digital services from abroad", url: "https://www.sat.gob.mx/" },
  cl: { name: "SII, IVA on digital services", url: "https://www.sii.cl/" },
  co: { name: "DIAN, IVA on services from abroad", url: "https://www.dian.gov.co/" },
  ca: {
    name: "Canada Revenue Agency, GST/HST rates by province",
    url: "https://www.canada.ca/en/revenue-agency/services/tax/businesses/topics/gst-hst-businesses/charge-collect-which-rate.html",
  },
  qc: {
    name: "Revenu Québec, QST for suppliers outside Québec",
    url: "https://www.revenuquebec.ca/en/businesses/consumption-taxes/gsthst-and-qst/",
  },
  bc: {
    name: "Government of British Columbia, PST on software and online services",
    url: "https://www2.gov.bc.ca/gov/content/taxes/sales-taxes/pst",
  },
  sk: {
    name: "Government of Saskatchewan, PST",
    url: "https://www.saskatchewan.ca/business/taxes-licensing-and-reporting/provincial-taxes-policies-and-bulletins/provincial-sales-tax",
  },
  mb: {
    name: "Government of Manitoba, retail sales tax on digital services",
    url: "https://www.gov.mb.ca/finance/taxation/taxes/retail.html",
  },
} as const satisfies Record<string, RateSource>;
type SourceKey = keyof typeof RATE_SOURCES;

/** A rate and the day (UTC, `YYYY-MM-DD`) it applies from. */
export interface RatePeriod {
  from: string;
  basisPoints: number;
}

export interface TaxRule {
  /** Where the buyer is: a country, and a state of it (`CA-ON`) for a rule of one state only. */
  country: string;
  state: string | null;
  /** The registration that collects it: a country-wide one (state null) or a state's own. */
  registration: { country: string; state: string | null };
  /** What documents call the tax. */
  name: string;
  /** Oldest first. */
  rates: readonly RatePeriod[];
  source: RateSource;
}

type Periods = readonly (readonly [from: string, basisPoints: number])[];

const periods = (list: Periods): RatePeriod[] => list.map(([from, basisPoints]) => ({ from, basisPoints }));

/** A rule collected under the buyer's own country-wide registration. */
const national = (country: string, name: string, source: SourceKey, list: Periods): TaxRule => ({
  country,
  state: null,
  registration: { country, state: null },
  name,
  rates: periods(list),
  source: RATE_SOURCES[source],
});

/** A rule of one state, collected under `registrationState` (the state's own registration, or null: the country's). */
const provincial = (state: string, registrationState: string | null, name: string, source: SourceKey, list: Periods): TaxRule => {
  const country = state.slice(0, 2);
  return {
    country,
    state,
    registration: { country, state: registrationState },
    name,
    rates: periods(list),
    source: RATE_SOURCES[source],
  };
};

/** The EU: one-stop-shop era (from 2015-01-01) standard rates, with each change since. */
// A rate table, kept dense so that it reads as one.
// prettier-ignore
const EU_RATES: Readonly<Record<string, Periods>> = {
  AT: [["2015-01-01", 2000]],
  BE: [["2015-01-01", 2100]],
  BG: [["2015-01-01", 2000]],
  CY: [["2015-01-01", 1900]],
  CZ: [["2015-01-01", 2100]],
  DE: [["2015-01-01", 1900], ["2020-07-01", 1600], ["2021-01-01", 1900]],
  DK: [["2015-01-01", 2500]],
  EE: [["2015-01-01", 2000], ["2024-01-01", 2200], ["2025-07-01", 2400]],
  ES: [["2015-01-01", 2100]],
  FI: [["2015-01-01", 2400], ["2024-09-01", 2550]],
  FR: [["2015-01-01", 2000]],
  GR: [["2015-01-01", 2300], ["2016-06-01", 2400]],
  HR: [["2015-01-01", 2500]],
  HU: [["2015-01-01", 2700]],
  IE: [["2015-01-01", 2300], ["2020-09-01", 2100], ["2021-03-01", 2300]],
  IT: [["2015-01-01", 2200]],
  LT: [["2015-01-01", 2100]],
  LU: [["2015-01-01", 1700], ["2023-01-01", 1600], ["2024-01-01", 1700]],
  LV: [["2015-01-01", 2100]],
  MT: [["2015-01-01", 1800]],
  NL: [["2015-01-01", 2100]],
  PL: [["2015-01-01", 2300]],
  PT: [["2015-01-01", 2300]],
  RO: [["2015-01-01", 2400], ["2016-01-01", 2000], ["2017-01-01", 1900], ["2025-08-01", 2100]],
  SE: [["2015-01-01", 2500]],
  SI: [["2015-01-01", 2200]],
  SK: [["2015-01-01", 2000], ["2025-01-01", 2300]],
};

export const EU_MEMBERS: ReadonlySet<string> = new Set(Object.keys(EU_RATES));
export const isEuMember = (country: string): boolean => EU_MEMBERS.has(country);

export const TAX_RULES: readonly TaxRule[] = [
  ...Object.entries(EU_RATES).map(([country, list]) => national(country, "VAT", "eu", list)),
  national("GB", "VAT", "gb", [["2015-01-01", 2000]]),
  national("NO", "VAT", "no", [["2011-07-01", 2500]]),
  national("CH", "VAT", "ch", [
    ["2011-01-01", 800],
    ["2018-01-01", 770],
    ["2024-01-01", 810],
  ]),
  // Liechtenstein shares Switzerland's VAT: a Swiss registration collects it.
  {
    ...national("LI", "VAT", "ch", [
      ["2011-01-01", 800],
      ["2018-01-01", 770],
      ["2024-01-01", 810],
    ]),
    registration: { country: "CH", state: null },
  },
  national("IS", "VAT", "is", [["2015-01-01", 2400]]),
  national("RS", "VAT", "rs", [["2017-04-01", 2000]]),
  national("TR", "VAT", "tr", [
    ["2018-01-01", 1800],
    ["2023-07-10", 2000],
  ]),
  national("AU", "GST", "au", [["2017-07-01", 1000]]),
  national("NZ", "GST", "nz", [["2016-10-01", 1500]]),
  national("JP", "JCT", "jp", [
    ["2015-10-01", 800],
    ["2019-10-01", 1000],
  ]),
  national("KR", "VAT", "kr", [["2015-07-01", 1000]]),
  national("SG", "GST", "sg", [
    ["2020-01-01", 700],
    ["2023-01-01", 800],
    ["2024-01-01", 900],
  ]),
  national("IN", "IGST", "in", [["2017-07-01", 1800]]),
  national("MY", "SST", "my", [
    ["2020-01-01", 600],
    ["2024-03-01", 800],
  ]),
  national("TH", "VAT", "th", [["2021-09-01", 700]]),
  national("TW", "VAT", "tw", [["2017-05-01", 500]]),
  national("ZA", "VAT", "za", [
    ["2014-06-01", 1400],
    ["2018-04-01", 1500],
  ]),
  national("SA", "VAT", "sa", [
    ["2018-01-01", 500],
    ["2020-07-01", 1500],
  ]),
  national("AE", "VAT", "ae", [["2018-01-01", 500]]),
  national("BH", "VAT", "bh", [
    ["2019-01-01", 500],
    ["2022-01-01", 1000],
  ]),
  national("MX", "IVA", "mx", [["2020-06-01", 1600]]),
  national("CL", "IVA", "cl", [["2020-06-01", 1900]]),
  national("CO", "IVA", "co", [["2018-07-01", 1900]]),
  // Canada: GST everywhere, HST in its place in the participating provinces (both under the
  // GST/HST registration), and the provincial taxes with a registration of their own.
  national("CA", "GST", "ca", [["2021-07-01", 500]]),
  provincial("CA-ON", null, "HST", "ca", [["2021-07-01", 1300]]),
  provincial("CA-NB", null, "HST", "ca", [["2021-07-01", 1500]]),
  provincial("CA-NL", null, "HST", "ca", [["2021-07-01", 1500]]),
  provincial("CA-PE", null, "HST", "ca", [["2021-07-01", 1500]]),
  provincial("CA-NS", null, "HST", "ca", [
    ["2021-07-01", 1500],
    ["2025-04-01", 1400],
  ]),
  provincial("CA-QC", "CA-QC", "QST", "qc", [["2019-01-01", 997.5]]),
  provincial("CA-BC", "CA-BC", "PST", "bc", [["2021-04-01", 700]]),
  provincial("CA-SK", "CA-SK", "PST", "sk", [["2017-03-23", 600]]),
  provincial("CA-MB", "CA-MB", "RST", "mb", [["2021-12-01", 700]]),
];

/** The rate of a rule in force on `day` (`YYYY-MM-DD`), or null before its first date. */
export function rateOn(rule: TaxRule, day: string): number | null {
  let rate: number | null = null;
  for (const period of rule.rates) if (period.from <= day) rate = period.basisPoints;
  return rate;
}
