import { RequestValidationError, fieldIssue } from "../../http/errors.ts";
import { csvDocument, type CsvCell } from "../../values/csv.ts";
import { zonedTimeReader, type ZonedTime } from "../../values/zoned-time.ts";
import type { exportOrderRows } from "./orders.repository.ts";
import type { OrderExportColumn } from "./orders.schemas.ts";

// `GET /v1/orders/export`, as the hosted service writes it (docs/decisions.md, "Order export").

type ExportRow = Awaited<ReturnType<typeof exportOrderRows>>[number];

export const DEFAULT_ORDER_EXPORT_COLUMNS: readonly OrderExportColumn[] = [
  "email",
  "created_at",
  "product",
  "net_amount",
  "currency",
  "status",
  "invoice_number",
];

const HEADERS: Readonly<Record<OrderExportColumn, string>> = {
  email: "Email",
  created_at: "Created At",
  product: "Product",
  net_amount: "Net Amount",
  currency: "Currency",
  status: "Status",
  invoice_number: "Invoice number",
  customer_name: "Customer Name",
  billing_name: "Billing Name",
  billing_country: "Billing Country",
  subtotal_amount: "Subtotal",
  discount_amount: "Discount",
  tax_amount: "Tax",
  total_amount: "Total",
  refunded_amount: "Refunded Amount",
  billing_reason: "Billing Reason",
};

/**
 * Minor units divided by 100 as the hosted service's Python prints the quotient (`12.34`, `12.5`,
 * `12.0`, `-0.05`), worked on the integer's digits: no floating point. Every currency is divided
 * by 100, the zero-decimal ones included, as the hosted service does.
 */
export function hundredths(amount: number): string {
  const sign = amount < 0 ? "-" : "";
  const magnitude = Math.abs(amount);
  const cents = magnitude % 100;
  const fraction = cents === 0 ? "0" : cents % 10 === 0 ? String(cents / 10) : String(cents).padStart(2, "0");
  return `${sign}${Math.floor(magnitude / 100)}.${fraction}`;
}

/** A moment as Python's `isoformat()` writes it in the zone: microseconds only when there are some, the offset always. */
function isoIn(read: (moment: Date) => ZonedTime) {
  return (moment: Date): string => {
    const time = read(moment);
    const milliseconds = moment.getUTCMilliseconds();
    const fraction = milliseconds === 0 ? "" : `.${String(milliseconds).padStart(3, "0")}000`;
    return `${time.year}-${time.month}-${time.day}T${time.hour}:${time.minute}:${time.second}${fraction}${time.offset}`;
  };
}

/** The reader of an export's zone; an unknown zone is the caller's mistake (422). */
function zoneOf(timezone: string): (moment: Date) => ZonedTime {
  const read = zonedTimeReader(timezone);
  if (!read) throw new RequestValidationError([fieldIssue(["query", "timezone"], "Invalid time zone.", timezone)]);
  return read;
}

/** `polar-orders[-from][-to].csv`: the bounds' dates in the export's zone. */
export function ordersExportFilename(bounds: { after: Date | null; before: Date | null }, timezone: string): string {
  const read = zoneOf(timezone);
  const day = (moment: Date) => {
    const time = read(moment);
    return `${time.year}-${time.month}-${time.day}`;
  };
  return ["polar-orders", ...(bounds.after ? [day(bounds.after)] : []), ...(bounds.before ? [day(bounds.before)] : [])].join("-") + ".csv";
}

/** The orders as CSV, a row each in the chosen columns, dates in the chosen zone. */
export function ordersCsv(rows: readonly ExportRow[], columns: readonly OrderExportColumn[], timezone: string): string {
  const iso = isoIn(zoneOf(timezone));
  const cell = (row: ExportRow, column: OrderExportColumn): CsvCell => {
    switch (column) {
      case "email":
        return row.email;
      case "created_at":
        return iso(row.created_at);
      case "product":
        return row.description;
      case "net_amount":
        return hundredths(row.net_amount);
      case "currency":
        return row.currency;
      case "status":
        return row.status;
      case "invoice_number":
        return row.invoice_number ?? "";
      case "customer_name":
        return row.customer_name ?? "";
      case "billing_name":
        return row.billing_name ?? "";
      case "billing_country":
        return row.billing_address?.country ?? "";
      case "subtotal_amount":
        return hundredths(row.subtotal_amount);
      case "discount_amount":
        return hundredths(row.discount_amount);
      case "tax_amount":
        return hundredths(row.tax_amount);
      case "total_amount":
        return hundredths(row.total_amount);
      case "refunded_amount":
        return hundredths(row.refunded_amount);
      case "billing_reason":
        return row.billing_reason;
    }
  };
  return csvDocument(
    columns.map((column) => HEADERS[column]),
    rows.map((row) => columns.map((column) => cell(row, column))),
  );
}
