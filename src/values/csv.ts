import { stringify } from "csv-stringify/sync";

export type CsvCell = string | number | boolean;

/**
 * A CSV document of a header row and data rows. A text cell starting with `=`, `+`, `-` or `@` is
 * prefixed with `'`, so a spreadsheet never runs a customer-typed value as a formula.
 */
export function csvDocument(header: readonly string[], rows: readonly (readonly CsvCell[])[]): string {
  const safe = (value: CsvCell) => (typeof value === "string" && /^[=+\-@]/.test(value) ? `'${value}` : value);
  return stringify([header, ...rows.map((row) => row.map(safe))]);
}
