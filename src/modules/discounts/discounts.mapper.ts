import type { Jsonified } from "../../db/jsonified.ts";
import type { CheckoutDiscount } from "./discounts.schemas.ts";
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

export function toCheckoutDiscount(row: Pick<DiscountJson, "id" | "name" | "code" | "type" | "duration" | "duration_in_months" | "basis_points" | "amounts">, currency: string): CheckoutDiscount {
  const identity = { id: row.id, name: row.name, code: row.code, duration: row.duration, type: row.type };
  const months = row.duration === "repeating" ? { duration_in_months: row.duration_in_months ?? 1 } : {};
  if (row.type === "percentage") return { ...identity, ...months, basis_points: row.basis_points ?? 0 };
  const amounts = row.amounts ?? {};
  return { ...identity, ...months, ...legacyFixedAmount(amounts, currency), amounts };
}
