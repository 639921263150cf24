import type { Executor } from "../../db/database.ts";
import { issueLicenseKey } from "../license-keys/license-keys.service.ts";
import { publishGrantEvents } from "./benefit-grant-events.ts";
import type { BenefitJson } from "./benefits.mapper.ts";
import { hasGrant, insertBenefitGrant } from "./benefits.repository.ts";

// The benefit operations other modules and flows run inside their own transaction.

/**
 * Grants every benefit of a purchased product to the buyer, in the order's transaction (with the
 * buyer's `customer.state_changed`, as every grant change schedules it, and a
 * `benefit_grant.created` per grant, as every change records its `benefit_grant.*` events). The
 * (order, benefit) unique index makes a replay a no-op instead of a second key. A subscription's
 * license keys never expire on their own: they last as long as the subscription (the anchor's rule).
 */
export async function grantBenefits(
  db: Executor,
  input: { customerId: string; orderId: string | null; subscriptionId: string | null; benefits: readonly BenefitJson[]; now: Date },
): Promise<number> {
  const granted: string[] = [];
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
    const { id } = await insertBenefitGrant(db, {
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
    granted.push(id);
  }
  await publishGrantEvents(db, "benefit_grant.created", granted, input.now);
  return granted.length;
}
