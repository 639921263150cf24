/**
 * The order rollups of the metrics and each counted order's contribution to them: see
 * migrations/2026-12-01T0400_metric_order_rollups.ts and 2026-12-02T0200_metric_order_day_rollups.ts.
 * Triggers keep them; the rebuild rewrites them.
 */
export interface MetricOrderFactsTable {
  order_id: string;
  organization_id: string;
  /** The UTC hour of the order's creation. */
  hour: Date;
  product_id: string | null;
  currency: string;
  subscription_id: string | null;
  /** Hours from the subscription's start (its hour) to the order's hour; null: none or over 9,000. */
  start_lag: number | null;
  /** Hours from the subscription's previous settled order (its hour); null: none or over 9,000. */
  prev_lag: number | null;
  revenue: string;
  net: string;
}

export interface MetricOrderRollupsTable {
  organization_id: string;
  hour: Date;
  product_id: string | null;
  currency: string;
  subscription: boolean;
  start_lag: number | null;
  prev_lag: number | null;
  /** One of a key's rows (0–15): concurrent writers of one key add to different slots; reads sum them. */
  slot: number;
  orders: string;
  revenue: string;
  net: string;
}

/** The facts by local day at each whole-hour UTC offset, for periods bounded by midnights at one offset (the hours answer the rest). */
export interface MetricOrderDayRollupsTable {
  organization_id: string;
  /** Hours east of UTC, −12 to +14. */
  utc_offset: number;
  /** The local date at that offset. */
  day: Date;
  product_id: string | null;
  currency: string;
  subscription: boolean;
  /** The subscription's start as a local date at that offset (kept exact within a week: metrics_day_lag). */
  start_day: Date | null;
  /** The subscription's previous order as a local date at that offset, likewise. */
  prev_day: Date | null;
  /** One of a key's rows (0–15), taken per organization and transaction; reads sum them. */
  slot: number;
  orders: string;
  revenue: string;
  net: string;
}
