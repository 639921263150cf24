import type { ColumnType, Generated, Selectable } from "kysely";
import type { Metadata, RecurringInterval } from "../../schema/primitives.ts";

type Json<T> = ColumnType<T, string | undefined, string>;

export interface ProductsTable {
  id: Generated<string>;
  created_at: Generated<Date>;
  modified_at: Date | null;
  organization_id: string;
  name: string;
  description: string | null;
  visibility: Generated<"draft" | "private" | "public">;
  recurring_interval: RecurringInterval | null;
  recurring_interval_count: number | null;
  trial_interval: RecurringInterval | null;
  trial_interval_count: number | null;
  meter_interval: RecurringInterval | null;
  meter_interval_count: number | null;
  is_tax_applicable: Generated<boolean>;
  is_archived: Generated<boolean>;
  metadata: Json<Metadata>;
}
export type ProductRow = Selectable<ProductsTable>;

export type PriceAmountType = "fixed" | "custom" | "free" | "seat_based" | "metered_unit";

export interface SeatTier {
  min_seats: number;
  max_seats: number | null;
  price_per_seat: number;
}

export interface ProductPricesTable {
  id: Generated<string>;
  created_at: Generated<Date>;
  modified_at: Date | null;
  organization_id: string;
  product_id: string;
  amount_type: PriceAmountType;
  price_currency: Generated<string>;
  price_amount: number | null;
  minimum_amount: number | null;
  maximum_amount: number | null;
  preset_amount: number | null;
  seat_tiers: Json<SeatTier[] | null>;
  /** Decimal string: metered unit prices may be fractions of a cent. */
  unit_amount: string | null;
  cap_amount: number | null;
  meter_id: string | null;
  meter_name: string | null;
  tax_behavior: string | null;
  is_archived: Generated<boolean>;
  position: Generated<number>;
}
export type ProductPriceRow = Selectable<ProductPricesTable>;

export interface ProductBenefitsTable {
  organization_id: string;
  product_id: string;
  benefit_id: string;
  position: Generated<number>;
}

export interface ProductMediasTable {
  id: Generated<string>;
  created_at: Generated<Date>;
  modified_at: Date | null;
  organization_id: string;
  product_id: string;
  name: string;
  path: string;
  mime_type: string;
  size: number;
  checksum_sha256_base64: string | null;
  checksum_sha256_hex: string | null;
  public_url: string;
  position: Generated<number>;
  /** The uploaded file this media is (its id in answers); null for a row from before uploads. */
  file_id: string | null;
}
export type ProductMediaRow = Selectable<ProductMediasTable>;
