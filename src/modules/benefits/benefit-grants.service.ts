import type { Executor } from "../../db/database.ts";
import { afterGrantChanges } from "./benefit-grant-events.ts";
import { revokeOrderGrants } from "./benefits.repository.ts";

/**
 * Takes back what a refunded one-time order granted (a refund with `revoke_benefits`): its grants
 * still granted are revoked, with their license keys, in the caller's transaction, each with its
 * `benefit_grant.revoked`. Returns how many changed; a second call (or a racing one) revokes nothing.
 */
export async function revokeOrderBenefits(db: Executor, orderId: string, now: Date): Promise<number> {
  return afterGrantChanges(db, await revokeOrderGrants(db, orderId, now), false, now);
}
