import type { CustomerPaymentMethod, PaymentMethod } from "./payment-methods.schemas.ts";
import type { PaymentMethodRow } from "./payments.table.ts";

/** The portal's view of a saved method: a card with its display facts, or any other type bare. */
export function toCustomerPaymentMethod(row: PaymentMethodRow): CustomerPaymentMethod {
  const base = {
    id: row.id,
    created_at: row.created_at.toISOString(),
    modified_at: row.modified_at?.toISOString() ?? null,
    processor: "stripe" as const,
    customer_id: row.customer_id,
  };
  const { brand, last4, exp_month: expMonth, exp_year: expYear } = row;
  if (row.type === "card" && brand !== null && last4 !== null && expMonth !== null && expYear !== null) {
    return { ...base, type: "card", method_metadata: { brand, last4, exp_month: expMonth, exp_year: expYear, wallet: null } };
  }
  return { ...base, type: row.type };
}

/** The organization's view: the portal's, and whether it is the customer's default. */
export const toPaymentMethod = (row: PaymentMethodRow, defaultMethodId: string | null): PaymentMethod => ({
  ...toCustomerPaymentMethod(row),
  is_default: row.id === defaultMethodId,
});
