import { toIso, toIsoOrNull } from "../../kit/schema.ts";
import type { Customer, TaxIdFormat } from "./customers.schemas.ts";
import type { CustomerRow } from "./customers.table.ts";

/** A customer row plus what the read schema computes from other tables. */
export type CustomerReadRow = CustomerRow & { first_user_event_at: Date | null };

export function toCustomer(row: CustomerReadRow): Customer {
  const common = {
    id: row.id,
    created_at: toIso(row.created_at),
    modified_at: toIsoOrNull(row.modified_at),
    metadata: row.metadata,
    external_id: row.external_id,
    email_verified: row.email_verified,
    name: row.name,
    // The reference falls back to the customer name when no billing name was set.
    billing_name: row.billing_name ?? row.name,
    billing_address: row.billing_address,
    // Stored formats come from our own validated input, so they are members of the enum.
    tax_id: row.tax_id === null ? null : ([row.tax_id[0], row.tax_id[1] as TaxIdFormat] as [string, TaxIdFormat]),
    locale: row.locale,
    organization_id: row.organization_id,
    default_payment_method_id: row.default_payment_method_id,
    deleted_at: toIsoOrNull(row.deleted_at),
    first_user_event_at: toIsoOrNull(row.first_user_event_at),
    avatar_url: row.avatar_url,
  };
  return row.type === "team" ? { ...common, type: "team", email: row.email } : { ...common, type: "individual", email: row.email };
}
