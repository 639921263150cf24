import { isoFrom, isoFromOrNull } from "../../db/jsonified.ts";
import { toCustomer } from "../customers/customers.mapper.ts";
import type { CustomerRow } from "../customers/customers.table.ts";
import type { GrantEmbeddedRow } from "./benefit-grants.repository.ts";
import type { BenefitGrant } from "./benefit-grants.schemas.ts";
import { toBenefit } from "./benefits.mapper.ts";
import type { BenefitGrantRow } from "./benefits.table.ts";

/** The fields every view of a grant shares (no failed grants here: a grant is made or not, so `error` is null). */
export const toBenefitGrantFields = (row: BenefitGrantRow) => ({
  created_at: isoFrom(row.created_at),
  modified_at: isoFromOrNull(row.modified_at),
  id: row.id,
  granted_at: isoFromOrNull(row.granted_at),
  is_granted: row.granted_at !== null,
  revoked_at: isoFromOrNull(row.revoked_at),
  is_revoked: row.revoked_at !== null,
  subscription_id: row.subscription_id,
  order_id: row.order_id,
  customer_id: row.customer_id,
  member_id: row.member_id,
  benefit_id: row.benefit_id,
  error: null,
  // What the grant produced: only the keys its benefit type defines were ever stored.
  properties: row.properties,
});

export function toBenefitGrant(row: GrantEmbeddedRow): BenefitGrant {
  const { customer, benefit, ...grant } = row;
  if (!customer || !benefit) throw new Error(`benefit grant ${row.id} without its customer or benefit`);
  return {
    ...toBenefitGrantFields(grant),
    customer: toCustomer({ ...customer, tax_id: customer.tax_id as CustomerRow["tax_id"] }),
    benefit: toBenefit(benefit),
  };
}
