import { toIso, toIsoOrNull } from "../../schema/primitives.ts";
import type { LicenseKeyActivationRow, LicenseKeyRow } from "./license-keys.table.ts";
import { toCustomer, type CustomerReadRow } from "../customers/customers.mapper.ts";
import type { LicenseKeyActivationBase, LicenseKeyRead } from "./license-keys.schemas.ts";

/** Only the tail of a key is shown where the whole key must not be. */
export const displayKey = (key: string): string => `****-${key.slice(-6)}`;

export function toLicenseKey(row: LicenseKeyRow, customer: CustomerReadRow): LicenseKeyRead {
  return {
    id: row.id,
    created_at: toIso(row.created_at),
    modified_at: toIsoOrNull(row.modified_at),
    organization_id: row.organization_id,
    customer_id: row.customer_id,
    customer: toCustomer(customer),
    benefit_id: row.benefit_id,
    key: row.key,
    display_key: displayKey(row.key),
    status: row.status,
    limit_activations: row.limit_activations,
    usage: row.usage,
    limit_usage: row.limit_usage,
    validations: row.validations,
    last_validated_at: toIsoOrNull(row.last_validated_at),
    expires_at: toIsoOrNull(row.expires_at),
  };
}

/** Conditions are what a validation must present; they are never echoed back. */
export function toActivation(row: LicenseKeyActivationRow): LicenseKeyActivationBase {
  return {
    id: row.id,
    license_key_id: row.license_key_id,
    label: row.label,
    meta: row.meta as LicenseKeyActivationBase["meta"],
    created_at: toIso(row.created_at),
    modified_at: toIsoOrNull(row.modified_at),
  };
}
