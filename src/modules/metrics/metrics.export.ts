import { stringify } from "csv-stringify/sync";
import { METRICS } from "./metric-definitions.ts";
import type { MetricsResult } from "./metrics.service.ts";

/** The file name the hosted service gives the export. */
export const METRICS_EXPORT_FILENAME = "polar-metrics.csv";

/**
 * `GET /v1/metrics/export` as the hosted service writes it (anchor-behaviour-wave3.md §1.8): Excel's
 * dialect (CRLF), `Timestamp` then each included metric's display name in canonical order, one row
 * per period with its local ISO timestamp, no totals row.
 */
export function metricsCsv(result: MetricsResult): string {
  const included = METRICS.filter((definition) => result.slugs.includes(definition.slug));
  const header = ["Timestamp", ...included.map((definition) => definition.display_name)];
  const rows = result.periods.map((period) => [period.timestamp, ...included.map((definition) => period.values[definition.slug])]);
  return stringify([header, ...rows], { record_delimiter: "windows" });
}
