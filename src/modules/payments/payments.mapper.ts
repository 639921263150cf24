import { toIso, toIsoOrNull } from "../../schema/primitives.ts";
import type { PaymentView } from "./payments.repository.ts";
import type { Payment } from "./payments.schemas.ts";

/**
 * An attempt as the API shows it: a card with the saved method's brand and last digits, else the
 * generic shape (a one-off card at checkout is not saved, so its display facts are unknown).
 */
export function toPayment(row: PaymentView): Payment {
  const fields = {
    created_at: toIso(row.created_at),
    modified_at: toIsoOrNull(row.modified_at),
    id: row.id,
    // Every processor adapter speaks for the reference's only processor (as saved methods do).
    processor: "stripe" as const,
    status: row.status,
    amount: row.amount,
    currency: row.currency,
    trigger: row.trigger,
    decline_reason: row.decline_reason,
    decline_message: row.decline_message,
    organization_id: row.organization_id,
    checkout_id: row.checkout_id,
    order_id: row.order_id,
    processor_metadata: row.processor_reference === null ? {} : { charge_id: row.processor_reference },
  };
  if (row.method === "card" && row.method_brand !== null && row.method_last4 !== null)
    return { ...fields, method: "card", method_metadata: { brand: row.method_brand, last4: row.method_last4 } };
  return { ...fields, method: row.method };
}
