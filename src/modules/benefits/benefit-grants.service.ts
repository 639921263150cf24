import type { Executor } from "../../db/database.ts";
import { afterGrantChanges, publishGrantEvents } from "./benefit-grant-events.ts";
import type { BenefitGrantProperties } from "./benefit-grants.schemas.ts";
import { revokeCustomerGrants, revokeOrderGrants, setLicenseKeyGrant, touchLicenseKeyGrant } from "./benefits.repository.ts";

/**
 * Takes back what a refunded one-time order granted (a refund with `revoke_benefits`): its grants
 * still granted are revoked, with their license keys, in the caller's transaction, each with its
 * `benefit_grant.revoked`. Returns how many changed; a second call (or a racing one) revokes nothing.
 */
export async function revokeOrderBenefits(db: Executor, orderId: string, now: Date): Promise<number> {
  return afterGrantChanges(db, await revokeOrderGrants(db, orderId, now), false, now);
}

/**
 * Takes back everything a deleted customer still holds (one-time orders' grants; its subscriptions'
 * went when they ended), with their license keys and a `benefit_grant.revoked` each, in the caller's transaction.
 */
export async function revokeCustomerBenefits(db: Executor, customerId: string, now: Date): Promise<number> {
  return afterGrantChanges(db, await revokeCustomerGrants(db, customerId, now), false, now);
}

/**
 * A seller revoked a key, or granted it again: the grant that issued it follows (revoked, or granted
 * again as a `benefit_grant.created`), as the hosted service syncs it; a disabled key leaves it be.
 */
export async function syncLicenseKeyGrant(
  db: Executor,
  key: { id: string; organization_id: string; customer_id: string; benefit_id: string },
  granted: boolean,
  now: Date,
): Promise<number> {
  return afterGrantChanges(db, await setLicenseKeyGrant(db, key, granted, now), granted, now);
}

/**
 * A license key's activations changed without the seller (silent ones deactivated): the grant that
 * issued it records a `benefit_grant.updated`, as the hosted service sends for a changed grant; its
 * properties (the key's id and display) are what they were.
 */
export async function licenseKeyGrantUpdated(
  db: Executor,
  key: { id: string; organization_id: string; customer_id: string; benefit_id: string },
  now: Date,
): Promise<void> {
  const grants = await touchLicenseKeyGrant(db, key, now);
  const previous = new Map(grants.map((grant) => [grant.id, grant.properties as BenefitGrantProperties]));
  await publishGrantEvents(db, "benefit_grant.updated", grants.map((grant) => grant.id).sort(), now, previous);
}
