import type { Executor } from "../../db/database.ts";
import { issueLicenseKey } from "../license-keys/license-keys.steps.ts";
import { afterGrantChanges, publishGrantEvents } from "./benefit-grant-events.ts";
import { grantBenefitFiles } from "./downloadable-grants.ts";
import type { BenefitJson } from "./benefits.mapper.ts";
import {
  grantedSubscriptionGrantIds,
  benefitsAlreadyGranted,
  insertBenefitGrant,
  revokeGrantsOutsideProduct,
  restoreSeatGrants,
  revokeSeatGrants,
  setSubscriptionGrants,
} from "./benefits.repository.ts";

// The benefit operations other modules and flows run inside their own transaction.

/** A claimed seat's holder, and the subscription the seat belongs to (null for an order's seat). */
export interface SeatHolder {
  id: string;
  memberId: string;
  subscriptionId: string | null;
}

/**
 * Grants every benefit of a purchased product to the buyer, in the order's transaction (with the
 * buyer's `customer.state_changed`, as every grant change schedules it, and a
 * `benefit_grant.created` per grant, as every change records its `benefit_grant.*` events). The
 * (order, benefit) unique index makes a replay a no-op instead of a second key. A subscription's
 * license keys never expire on their own: they last as long as the subscription (the hosted service's rule).
 */
export async function grantBenefits(
  db: Executor,
  input: {
    customerId: string;
    orderId: string | null;
    subscriptionId: string | null;
    /**
     * A claimed seat: the grants are its holder's (member-scoped), kept apart from the purchase's;
     * a subscription's seat lasts as the subscription does, so its license keys do too.
     */
    seat?: SeatHolder;
    benefits: readonly BenefitJson[];
    /** The order (else subscription) was written in the caller's transaction: it has no grant yet to look for. */
    newSource?: boolean;
    now: Date;
  },
): Promise<number> {
  const source = { orderId: input.orderId, subscriptionId: input.subscriptionId, ...(input.seat && { seat: input.seat }) };
  const already = input.newSource
    ? new Set<string>()
    : await benefitsAlreadyGranted(
        db,
        source,
        input.benefits.map((benefit) => benefit.id),
      );
  const granted: string[] = [];
  for (const benefit of input.benefits) {
    if (already.has(benefit.id)) continue;
    const properties =
      benefit.type === "license_keys"
        ? await issueLicenseKey(db, {
            organizationId: benefit.organization_id,
            benefitId: benefit.id,
            customerId: input.customerId,
            terms: (input.subscriptionId ?? input.seat?.subscriptionId) ? { ...benefit.properties, expires: null } : benefit.properties,
            now: input.now,
          })
        : benefit.type === "downloadables"
          ? await grantBenefitFiles(db, benefit, input.customerId, input.now)
          : {};
    const { id } = await insertBenefitGrant(db, {
      created_at: input.now,
      modified_at: null,
      organization_id: benefit.organization_id,
      customer_id: input.customerId,
      benefit_id: benefit.id,
      order_id: input.orderId,
      subscription_id: input.subscriptionId,
      member_id: input.seat?.memberId ?? null,
      seat_id: input.seat?.id ?? null,
      granted_at: input.now,
      revoked_at: null,
      properties: JSON.stringify(properties),
    });
    granted.push(id);
  }
  await publishGrantEvents(db, "benefit_grant.created", granted, input.now);
  return granted.length;
}

/**
 * A subscription's grants follow its life: revoked when it ends or falls past due, restored when it
 * recovers. The license keys they issued are revoked and restored with them (the same key, as the
 * hosted service re-grants it). Returns how many grants changed.
 */
export async function setSubscriptionBenefits(db: Executor, subscriptionId: string, granted: boolean, now: Date): Promise<number> {
  return afterGrantChanges(db, await setSubscriptionGrants(db, subscriptionId, granted, now), granted, now);
}

/** A seat revoked: its holder's grants go with it (their license keys revoked, a `benefit_grant.revoked` each). */
export async function revokeSeatBenefits(db: Executor, seatId: string, now: Date): Promise<number> {
  return afterGrantChanges(db, await revokeSeatGrants(db, seatId, now), false, now);
}

/**
 * A claimed seat's holder holds its product's benefits as they are now (on claim, and after the
 * product's benefits or the subscription's product changed): grants of benefits it no longer carries
 * are revoked, the holder's earlier grants of those it carries restored (the same license key), and
 * the others granted, member-scoped under the billing customer.
 */
export async function syncSeatBenefits(
  db: Executor,
  input: { customerId: string; seat: SeatHolder; benefits: readonly BenefitJson[]; now: Date },
): Promise<void> {
  const { seat, now } = input;
  const ids = input.benefits.map((benefit) => benefit.id);
  await afterGrantChanges(db, await revokeSeatGrants(db, seat.id, now, ids), false, now);
  await afterGrantChanges(db, await restoreSeatGrants(db, seat, ids, now), true, now);
  await grantBenefits(db, { customerId: input.customerId, orderId: null, subscriptionId: null, seat, benefits: input.benefits, now });
}

/**
 * A paid renewal renews what the subscription grants, to its buyer and to its seats' holders alike:
 * one `benefit_grant.cycled` per granted grant (a meter credit starts its new period).
 */
export async function cycleSubscriptionBenefits(db: Executor, subscriptionId: string, now: Date): Promise<number> {
  const ids = await grantedSubscriptionGrantIds(db, subscriptionId);
  await publishGrantEvents(db, "benefit_grant.cycled", ids, now);
  return ids.length;
}

/**
 * After a subscription's product changed: the grants of benefits the new product lacks are revoked,
 * and its benefits granted (restored when granted before); a seat-based product grants its buyer
 * none (the caller passes none), so they all go. A subscription whose grants are off
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
export { publishGrantEvents } from "./benefit-grant-events.ts";
export { retireBenefit } from "./benefits.service.ts";
export { pageGrants } from "./benefit-grant-reads.service.ts";
export { type GrantEmbeddedRow } from "./benefit-grants.repository.ts";
export { existingBenefitIds } from "./benefits.repository.ts";
export { findGrantForUpdate, grantsEmbedded, updateGrantProperties, type GrantFilter } from "./benefit-grants.repository.ts";

// Benefits as other modules embed them in their own statements.
export { selectLiveBenefits } from "./benefits.repository.ts";
export { grantsOfCustomer } from "./benefit-grants.repository.ts";

// What an order's confirmation email lists.
export { grantsOfOrder } from "./benefit-grants.repository.ts";

// What customer meters read of meter credit grants.
export { grantWithTermsForUpdate, holdsMeterCredit } from "./benefit-grants.repository.ts";
