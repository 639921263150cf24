import { seatRange } from "./seat-pricing.ts";
import { sizeReadable } from "../../values/byte-sizes.ts";
import { isoFrom, isoFromJson, isoFromJsonOrNull, isoFromOrNull, type EitherTimestamps, type Jsonified } from "../../db/jsonified.ts";
import type { ProductMediaRow, ProductPriceRow, ProductRow } from "./products.table.ts";
import { toBenefit, toBenefitPublic, type BenefitJson } from "../benefits/benefits.mapper.ts";
import { toAttachedCustomField, type AttachedCustomFieldJson } from "../custom-fields/custom-fields.mapper.ts";
import type { CheckoutProduct, Product, ProductMediaFileRead, ProductPrice } from "./products.schemas.ts";

export type ProductPriceJson = Jsonified<ProductPriceRow>;
export type ProductMediaJson = Jsonified<ProductMediaRow>;
export type ProductWithRelationsJson = Jsonified<ProductRow> & {
  prices: ProductPriceJson[];
  benefits: BenefitJson[];
  medias: ProductMediaJson[];
  attached_custom_fields: AttachedCustomFieldJson[];
};

export function toProductPrice(row: ProductPriceJson): ProductPrice {
  const head = {
    created_at: isoFromJson(row.created_at),
    modified_at: isoFromJsonOrNull(row.modified_at),
    id: row.id,
    source: "catalog" as const,
    price_currency: row.price_currency,
    tax_behavior: (row.tax_behavior ?? null) as "location" | "inclusive" | "exclusive" | null,
    is_archived: row.is_archived,
    product_id: row.product_id,
  };
  switch (row.amount_type) {
    // The 2026-04 interface has no free price shape: a free price is a fixed price of zero.
    case "free":
      return { ...head, amount_type: "fixed", price_amount: 0 };
    case "fixed":
      return { ...head, amount_type: "fixed", price_amount: row.price_amount ?? 0 };
    case "custom":
      return {
        ...head,
        amount_type: "custom",
        minimum_amount: row.minimum_amount ?? 0,
        maximum_amount: row.maximum_amount,
        preset_amount: row.preset_amount,
      };
    case "seat_based": {
      const tiers = row.seat_tiers ?? [];
      const range = seatRange(tiers);
      return {
        ...head,
        amount_type: "seat_based",
        seat_tiers: { seat_tier_type: "volume", tiers, minimum_seats: range.minimum, maximum_seats: range.maximum },
      };
    }
    case "metered_unit":
      return {
        ...head,
        amount_type: "metered_unit",
        unit_amount: String(row.unit_amount ?? "0"),
        cap_amount: row.cap_amount,
        meter_id: row.meter_id ?? "",
        meter: { id: row.meter_id ?? "", name: row.meter_name ?? "", unit: "scalar", custom_label: null, custom_multiplier: null },
      };
  }
}

export const toProductMedia = (row: ProductMediaJson): ProductMediaFileRead => ({
  id: row.id,
  organization_id: row.organization_id,
  name: row.name,
  path: row.path,
  mime_type: row.mime_type,
  size: row.size,
  storage_version: null,
  checksum_etag: null,
  checksum_sha256_base64: row.checksum_sha256_base64,
  checksum_sha256_hex: row.checksum_sha256_hex,
  last_modified_at: isoFromJsonOrNull(row.modified_at),
  version: null,
  service: "product_media",
  is_uploaded: true,
  created_at: isoFromJson(row.created_at),
  size_readable: sizeReadable(row.size),
  public_url: row.public_url,
});

/** The fields every product representation shares (full, checkout and discount views). */
export const toProductBase = (row: EitherTimestamps<ProductRow>) => ({
  id: row.id,
  created_at: isoFrom(row.created_at),
  modified_at: isoFromOrNull(row.modified_at),
  trial_interval: row.trial_interval,
  trial_interval_count: row.trial_interval_count,
  name: row.name,
  description: row.description,
  visibility: row.visibility,
  recurring_interval: row.recurring_interval,
  recurring_interval_count: row.recurring_interval_count,
  meter_interval: row.meter_interval,
  meter_interval_count: row.meter_interval_count,
  is_recurring: row.recurring_interval !== null,
  is_archived: row.is_archived,
  organization_id: row.organization_id,
});

/** The product summary embedded in discounts and orders: base fields and metadata. */
export const toProductSummary = (row: EitherTimestamps<ProductRow>) => ({ metadata: row.metadata, ...toProductBase(row) });

export const toCheckoutProduct = (row: ProductWithRelations): CheckoutProduct => ({
  ...toProductBase(row),
  prices: row.prices.map(toProductPrice),
  benefits: row.benefits.map(toBenefitPublic),
  medias: row.medias.map(toProductMedia),
});

/** A product read at the top level of a query, with its relations aggregated as JSON. */
export type ProductWithRelations = EitherTimestamps<ProductRow> &
  Pick<ProductWithRelationsJson, "prices" | "benefits" | "medias" | "attached_custom_fields">;

export const toProduct = (row: ProductWithRelations): Product => ({
  ...toProductBase(row),
  metadata: row.metadata,
  prices: row.prices.map(toProductPrice),
  benefits: row.benefits.map(toBenefit),
  medias: row.medias.map(toProductMedia),
  attached_custom_fields: row.attached_custom_fields.map(toAttachedCustomField),
});
