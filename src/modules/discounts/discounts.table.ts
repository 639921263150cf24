import type { ColumnType, Generated, Selectable } from "kysely";
import type { Metadata } from "../../schema/primitives.ts";

export interface DiscountsTable {
  id: Generated<string>;
  created_at: Generated<Date>;
  modified_at: Date | null;
  organization_id: string;
  name: string;
  code: string | null;
  type: "fixed" | "percentage";
  duration: "once" | "forever" | "repeating";
  duration_in_months: number | null;
  basis_points: number | null;
  /** Fixed discounts: currency code → amount in minor units. */
  amounts: ColumnType<Record<string, number> | null, string | null | undefined, string | null>;
  starts_at: Date | null;
  ends_at: Date | null;
  max_redemptions: number | null;
  max_redemptions_per_customer: Generated<number | null>;
  redemptions_count: Generated<number>;
  metadata: ColumnType<Metadata, string | undefined, string>;
  deleted_at: Date | null;
}
export type DiscountRow = Selectable<DiscountsTable>;

export interface DiscountProductsTable {
  organization_id: string;
  discount_id: string;
  product_id: string;
}
