import type { Generated, Selectable } from "kysely";

/** A saved dashboard: see migrations/2026-11-30T0142_metric_dashboards.ts. */
export interface MetricDashboardsTable {
  id: Generated<string>;
  created_at: Generated<Date>;
  modified_at: Date | null;
  organization_id: string;
  name: string;
  /** Metric slugs, in the order the dashboard shows them. */
  metrics: string[];
}
export type MetricDashboardRow = Selectable<MetricDashboardsTable>;
