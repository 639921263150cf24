import type { Executor } from "../../db/database.ts";
import type { BenefitJson } from "./benefits.mapper.ts";
import { setKeyStatus } from "../license-keys/license-keys.repository.ts";
import { publishGrantEvents } from "./benefit-grant-events.ts";
import { grantBenefits } from "./benefits.steps.ts";
import {
  grantedSubscriptionGrantIds,
  revokeGrantsOutsideProduct,
  revokeOrderGrants,
  setSubscriptionGrants,
} from "./benefits.repository.ts";

// Subscriptions still import the grant from here; it lives with the other steps.
export { grantBenefits };

/**
 * A subscription's grants follow its life: revoked when it ends or falls past due, restored when it
 * recovers. The license keys they issued are revoked and restored with them (the same key, as the
 * anchor re-grants it). Returns how many grants changed.
 */
export async function setSubscriptionBenefits(db: Executor, subscriptionId: string, granted: boolean, now: Date): Promise<number> {
  return afterGrantChanges(db, await setSubscriptionGrants(db, subscriptionId, granted, now), granted, now);
}

/**
 * Takes back what a refunded one-time order granted (a refund with `revoke_benefits`): its grants
 * still granted are revoked, with their license keys, in the caller's transaction, each with its
 * `benefit_grant.revoked`. Returns how many changed; a second call (or a racing one) revokes nothing.
 */
export async function revokeOrderBenefits(db: Executor, orderId: string, now: Date): Promise<number> {
  return afterGrantChanges(db, await revokeOrderGrants(db, orderId, now), false, now);
}

/**
 * Revokes or restores the license keys of changed grants and records the grants' events (which tell
 * their customers' state): a restored grant is granted again, so it is `created` (as the anchor sends it).
 */
async function afterGrantChanges(
  db: Executor,
  changed: readonly { id: string; properties: Record<string, unknown> }[],
  granted: boolean,
  now: Date,
): Promise<number> {
  const keyIds = changed.flatMap(({ properties }) => (typeof properties.license_key_id === "string" ? [properties.license_key_id] : []));
  await setKeyStatus(db, keyIds, granted ? "granted" : "revoked", now);
  const ids = changed.map((grant) => grant.id).sort();
  await publishGrantEvents(db, granted ? "benefit_grant.created" : "benefit_grant.revoked", ids, now);
  return changed.length;
}

/** A paid renewal renews what the subscription grants: one `benefit_grant.cycled` per granted grant. */
export async function cycleSubscriptionBenefits(db: Executor, subscriptionId: string, now: Date): Promise<number> {
  const ids = await grantedSubscriptionGrantIds(db, subscriptionId);
  await publishGrantEvents(db, "benefit_grant.cycled", ids, now);
  return ids.length;
}

/**
 * After a subscription's product changed: the grants of benefits the new product lacks are revoked,
 * and its benefits granted (restored when granted before). A subscription whose grants are off
 * (past due) gets the new grants revoked too, to be restored with the rest when it recovers.
 */
export async function switchSubscriptionBenefits(
  db: Executor,
  input: { customerId: string; subscriptionId: string; benefits: readonly BenefitJson[]; granted: boolean; now: Date },
): Promise<void> {
  await afterGrantChanges(db, await revokeGrantsOutsideProduct(db, input.subscriptionId, input.now), false, input.now);
  await grantBenefits(db, {
    customerId: input.customerId,
    orderId: null,
    subscriptionId: input.subscriptionId,
    benefits: input.benefits,
    now: input.now,
  });
  await setSubscriptionBenefits(db, input.subscriptionId, input.granted, input.now);
}
