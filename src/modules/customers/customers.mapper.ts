import { createHash } from "node:crypto";
import { isoFrom, isoFromOrNull, type EitherTimestamps } from "../../db/jsonified.ts";
import type { TaxIdFormat } from "../../adapters/tax-engine/tax-id.ts";
import type { Customer } from "./customers.schemas.ts";
import type { CustomerRow } from "./customers.table.ts";

/** A customer row, with the time of its first usage event when the read query computed it. */
export type CustomerReadRow = CustomerRow & { first_user_event_at?: Date | null };

/**
 * The avatar the hosted service computes for an instance without a logo service: the Gravatar image of the
 * email's SHA-256 (lowercased, trimmed), `d=404` so that no picture answers 404; none without email.
 */
export function customerAvatarUrl(email: string | null): string | null {
  if (email === null) return null;
  return `https://www.gravatar.com/avatar/${createHash("sha256").update(email.trim().toLowerCase()).digest("hex")}?d=404`;
}

/** Read directly or through JSON aggregation (timestamps as text). */
export function toCustomer(row: EitherTimestamps<CustomerRow> & { first_user_event_at?: Date | string | null }): Customer {
  const fields = {
    id: row.id,
    created_at: isoFrom(row.created_at),
    modified_at: isoFromOrNull(row.modified_at),
    metadata: row.metadata,
    external_id: row.external_id,
    email: row.email,
    email_verified: row.email_verified,
    name: row.name,
    // The hosted service's customer model falls back to the name when no billing name was set.
    billing_name: row.billing_name ?? row.name,
    billing_address: row.billing_address,
    tax_id: row.tax_id ? ([row.tax_id[0], row.tax_id[1] as TaxIdFormat] as [string, TaxIdFormat]) : null,
    locale: row.locale,
    organization_id: row.organization_id,
    default_payment_method_id: row.default_payment_method_id,
    deleted_at: isoFromOrNull(row.deleted_at),
    first_user_event_at: isoFromOrNull(row.first_user_event_at ?? null),
    avatar_url: customerAvatarUrl(row.email),
  };
  return row.type === "team" ? { ...fields, type: "team" } : { ...fields, type: "individual" };
}
