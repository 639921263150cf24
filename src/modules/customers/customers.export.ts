import { csvDocument } from "../../values/csv.ts";
import type { CustomerRow } from "./customers.table.ts";

// `GET /v1/customers/export`: the hosted service's fixed columns, a row per live customer.

const HEADER = [
  "ID",
  "External ID",
  "Created At",
  "Email",
  "Name",
  "Tax ID",
  "Billing Address Line 1",
  "Billing Address Line 2",
  "Billing Address City",
  "Billing Address State",
  "Billing Address Zip",
  "Billing Address Country",
  "Metadata",
];

/** The stored `(number, format)` pair as the hosted service writes it (Python's text of a list), not the bare number. */
const taxIdText = (taxId: readonly string[] | null): string => (taxId === null ? "" : `[${taxId.map((part) => `'${part}'`).join(", ")}]`);

/** The customers as CSV: times in ISO 8601 (UTC), the metadata as JSON, absent values empty. */
export function customersCsv(rows: readonly CustomerRow[]): string {
  return csvDocument(
    HEADER,
    rows.map((row) => {
      const address = row.billing_address;
      return [
        row.id,
        row.external_id ?? "",
        row.created_at.toISOString(),
        row.email,
        row.name ?? "",
        taxIdText(row.tax_id),
        address?.line1 ?? "",
        address?.line2 ?? "",
        address?.city ?? "",
        address?.state ?? "",
        address?.postal_code ?? "",
        address?.country ?? "",
        JSON.stringify(row.metadata),
      ];
    }),
  );
}
