import type { Executor } from "../../db/database.ts";
import { enqueueCustomerStateChanged } from "../../jobs/customer-state-changes.ts";
import { issueLicenseKey } from "../license-keys/license-keys.service.ts";
import type { BenefitJson } from "./benefits.mapper.ts";
import { setKeyStatus } from "../license-keys/license-keys.repository.ts";
import { hasGrant, insertBenefitGrant, setSubscriptionGrants } from "./benefits.repository.ts";

/**
 * Grants every benefit of a purchased product to the buyer, in the order's transaction (with the
 * buyer's `customer.state_changed`, as every grant change schedules it). The
 * (order, benefit) unique index makes a replay a no-op instead of a second key. A subscription's
 * license keys never expire on their own: they last as long as the subscription (the anchor's rule).
 */
export async function grantBenefits(
  db: Executor,
  input: { customerId: string; orderId: string | null; subscriptionId: string | null; benefits: readonly BenefitJson[]; now: Date },
): Promise<number> {
  let granted = 0;
  for (const benefit of input.benefits) {
    if (await hasGrant(db, input, benefit.id)) continue;
    const properties =
      benefit.type === "license_keys"
        ? await issueLicenseKey(db, {
            organizationId: benefit.organization_id,
            benefitId: benefit.id,
            customerId: input.customerId,
            terms: input.subscriptionId ? { ...benefit.properties, expires: null } : benefit.properties,
            now: input.now,
          })
        : {};
    await insertBenefitGrant(db, {
      created_at: input.now,
      modified_at: null,
      organization_id: benefit.organization_id,
      customer_id: input.customerId,
      benefit_id: benefit.id,
      order_id: input.orderId,
      subscription_id: input.subscriptionId,
      granted_at: input.now,
      revoked_at: null,
      properties: JSON.stringify(properties),
    });
    granted += 1;
  }
  if (granted > 0) await enqueueCustomerStateChanged(db, input.customerId);
  return granted;
}

/**
 * A subscription's grants follow its life: revoked when it ends or falls past due, restored when it
 * recovers. The license keys they issued are revoked and restored with them (the same key, as the
 * anchor re-grants it). Returns how many grants changed.
 */
export async function setSubscriptionBenefits(db: Executor, subscriptionId: string, granted: boolean, now: Date): Promise<number> {
  const changed = await setSubscriptionGrants(db, subscriptionId, granted, now);
  const keyIds = changed.flatMap(({ properties }) => (typeof properties.license_key_id === "string" ? [properties.license_key_id] : []));
  await setKeyStatus(db, keyIds, granted ? "granted" : "revoked", now);
  for (const customerId of new Set(changed.map((grant) => grant.customer_id))) await enqueueCustomerStateChanged(db, customerId);
  return changed.length;
}
