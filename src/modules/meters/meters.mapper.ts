import type { Meter } from "./meters.schemas.ts";
import type { MeterRow, MeterSpec } from "./meters.table.ts";

export const toMeter = (row: MeterRow): Meter => ({
  metadata: row.metadata,
  created_at: row.created_at.toISOString(),
  modified_at: row.modified_at === null ? null : row.modified_at.toISOString(),
  id: row.id,
  name: row.name,
  unit: row.unit,
  custom_label: row.custom_label,
  custom_multiplier: row.custom_multiplier,
  filter: row.filter,
  aggregation: row.aggregation,
  organization_id: row.organization_id,
  archived_at: row.archived_at === null ? null : row.archived_at.toISOString(),
});

export const toMeterSpec = (row: MeterRow): MeterSpec => ({
  id: row.id,
  organization_id: row.organization_id,
  filter: row.filter,
  aggregation: row.aggregation,
});
