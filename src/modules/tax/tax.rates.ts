/**
 * Standard VAT/GST rates in basis points (2025 standard rates). Countries without an entry are
 * charged no tax. Reduced rates, US sales tax and Canadian provincial taxes are out of scope.
 */
// A code list, kept dense so that it reads as a table.
// prettier-ignore
export const EU_VAT_BASIS_POINTS: Readonly<Record<string, number>> = {
  AT: 2000, BE: 2100, BG: 2000, CY: 1900, CZ: 2100, DE: 1900, DK: 2500, EE: 2200, ES: 2100, FI: 2550,
  FR: 2000, GR: 2400, HR: 2500, HU: 2700, IE: 2300, IT: 2200, LT: 2100, LU: 1700, LV: 2100, MT: 1800,
  NL: 2100, PL: 2300, PT: 2300, RO: 1900, SE: 2500, SI: 2200, SK: 2300,
};

// A code list, kept dense so that it reads as a table.
// prettier-ignore
export const STANDARD_RATE_BASIS_POINTS: Readonly<Record<string, number>> = {
  ...EU_VAT_BASIS_POINTS,
  GB: 2000,
  NO: 2500,
  CH: 810,
  AU: 1000,
  CA: 500,
};

export const isEuMember = (country: string): boolean => country in EU_VAT_BASIS_POINTS;
