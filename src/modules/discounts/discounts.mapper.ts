import { isoFrom, isoFromOrNull, type EitherTimestamps, type Jsonified } from "../../db/jsonified.ts";
import { toProductSummary } from "../products/products.mapper.ts";
import type { ProductRow } from "../products/products.table.ts";
import type { CheckoutDiscount, Discount, OrderDiscount } from "./discounts.schemas.ts";
import type { DiscountRow } from "./discounts.table.ts";

export type DiscountJson = Jsonified<DiscountRow>;

/**
 * The deprecated single `amount`/`currency` pair of fixed discounts: the amount in the wanted
 * currency when the discount has one, else its first currency.
 */
export function legacyFixedAmount(amounts: Record<string, number>, currency: string): { amount: number; currency: string } {
  if (amounts[currency] !== undefined) return { amount: amounts[currency], currency };
  const [first] = Object.entries(amounts);
  return first ? { amount: first[1], currency: first[0] } : { amount: 0, currency };
}

export function toCheckoutDiscount(
  row: Pick<DiscountJson, "id" | "name" | "code" | "type" | "duration" | "duration_in_months" | "basis_points" | "amounts">,
  currency: string,
): CheckoutDiscount {
  const identity = { id: row.id, name: row.name, code: row.code, duration: row.duration, type: row.type };
  const months = row.duration === "repeating" ? { duration_in_months: row.duration_in_months ?? 1 } : {};
  if (row.type === "percentage") return { ...identity, ...months, basis_points: row.basis_points ?? 0 };
  const amounts = row.amounts ?? {};
  return { ...identity, ...months, ...legacyFixedAmount(amounts, currency), amounts };
}

export type DiscountWithProducts = DiscountRow & { products: Jsonified<ProductRow>[] };

/** Currency of the deprecated `amount`/`currency` pair when the reader names none. */
const LEGACY_CURRENCY = "usd";

/** The discount without its products, as embedded in orders (read directly or through JSON aggregation). */
export function toDiscountBase(row: EitherTimestamps<DiscountRow>): OrderDiscount {
  const record = {
    created_at: isoFrom(row.created_at),
    modified_at: isoFromOrNull(row.modified_at),
    id: row.id,
    metadata: row.metadata,
    name: row.name,
    code: row.code,
    starts_at: isoFromOrNull(row.starts_at),
    ends_at: isoFromOrNull(row.ends_at),
    max_redemptions: row.max_redemptions,
    max_redemptions_per_customer: row.max_redemptions_per_customer,
    redemptions_count: row.redemptions_count,
    organization_id: row.organization_id,
  };
  const shape = {
    duration: row.duration,
    type: row.type,
    ...(row.duration === "repeating" ? { duration_in_months: row.duration_in_months ?? 1 } : {}),
  };
  if (row.type === "percentage") return { ...shape, basis_points: row.basis_points ?? 0, ...record };
  const amounts = row.amounts ?? {};
  return { ...shape, ...legacyFixedAmount(amounts, LEGACY_CURRENCY), amounts, ...record };
}

export function toDiscount(row: DiscountWithProducts): Discount {
  return { ...toDiscountBase(row), products: row.products.map(toProductSummary) };
}
