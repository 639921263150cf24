import type { Insertable } from "kysely";
import type { CheckoutsTable } from "./checkouts.table.ts";
import type { PricedCheckout } from "./checkouts.compute.ts";
import type { SessionDraft } from "./checkouts.editor.ts";
import type { CheckoutRow } from "./checkouts.table.ts";

type DraftColumns = Omit<Insertable<CheckoutsTable>, "organization_id" | "client_secret" | "expires_at" | "currency">;

/** A draft and its prices as column values (JSON columns as text). */
export function draftColumns(draft: SessionDraft, priced: PricedCheckout): DraftColumns & { currency: string } {
  return {
    ...draft,
    ...priced,
    customer_billing_address: draft.customer_billing_address ? JSON.stringify(draft.customer_billing_address) : null,
    metadata: JSON.stringify(draft.metadata),
    customer_metadata: JSON.stringify(draft.customer_metadata),
    custom_field_data: JSON.stringify(draft.custom_field_data),
  };
}

/** The editable part of a stored session. */
export function draftOf(row: CheckoutRow): SessionDraft {
  const {
    id: _id, created_at: _c, modified_at: _m, status: _s, client_secret: _cs, expires_at: _e, payment_processor_metadata: _p,
    discount_amount: _d, net_amount: _n, tax_amount: _t, tax_behavior: _tb, trial_end: _te, ...draft
  } = row;
  return draft;
}
