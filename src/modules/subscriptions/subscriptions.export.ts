import { RequestValidationError, fieldIssue } from "../../http/errors.ts";
import { csvDocument, type CsvCell } from "../../values/csv.ts";
import { zonedTimeReader } from "../../values/zoned-time.ts";
import type { SubscriptionExportColumn } from "./subscription-inputs.schemas.ts";
import type { exportRows } from "./subscriptions.repository.ts";

type ExportRow = Awaited<ReturnType<typeof exportRows>>[number];

export const DEFAULT_EXPORT_COLUMNS: readonly SubscriptionExportColumn[] = [
  "email",
  "started_at",
  "product",
  "amount",
  "currency",
  "status",
  "recurring_interval",
];

/** A timestamp as `YYYY-MM-DD HH:MM:SS` in the export's time zone (an unknown zone is the caller's mistake: 422); empty when absent. */
function dateIn(timezone: string) {
  const read = zonedTimeReader(timezone);
  if (!read) throw new RequestValidationError([fieldIssue(["query", "timezone"], "Invalid time zone.", timezone)]);
  return (value: Date | null): string => {
    if (value === null) return "";
    const time = read(value);
    return `${time.year}-${time.month}-${time.day} ${time.hour}:${time.minute}:${time.second}`;
  };
}

/**
 * A CSV of the subscriptions: a header row of the column names, then a row each. Amounts are in
 * minor units, as everywhere in this API.
 */
export function subscriptionsCsv(rows: readonly ExportRow[], columns: readonly SubscriptionExportColumn[], timezone: string): string {
  const date = dateIn(timezone);
  const cell = (row: ExportRow, column: SubscriptionExportColumn): CsvCell => {
    switch (column) {
      case "email":
        return row.email;
      case "started_at":
        return date(row.started_at);
      case "product":
        return row.product_name;
      // The amount a period bills before tax (docs/decisions.md, "Subscription export").
      case "amount":
      case "net_amount":
        return row.amount;
      case "currency":
        return row.currency;
      case "status":
        return row.status;
      case "recurring_interval":
        return row.recurring_interval;
      case "customer_name":
        return row.customer_name ?? "";
      case "billing_name":
        return row.billing_name ?? row.customer_name ?? "";
      case "billing_country":
        return row.billing_address?.country ?? "";
      case "discount":
        return row.discount_name ?? "";
      case "seats":
        return row.seats ?? "";
      case "current_period_start":
        return date(row.current_period_start);
      case "current_period_end":
        return date(row.current_period_end);
      case "cancel_at_period_end":
        return row.cancel_at_period_end;
      case "canceled_at":
        return date(row.canceled_at);
      case "ends_at":
        return date(row.ends_at);
      case "ended_at":
        return date(row.ended_at);
      case "cancellation_reason":
        return row.customer_cancellation_reason ?? "";
      case "trial_start":
        return date(row.trial_start);
      case "trial_end":
        return date(row.trial_end);
    }
  };
  return csvDocument(
    columns,
    rows.map((row) => columns.map((column) => cell(row, column))),
  );
}
