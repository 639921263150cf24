import type { Executor } from "../../db/database.ts";
import { customerStateChangedJob } from "../../contracts/customer-state-changes.ts";
import { meterCreditJob, type MeterCreditKind } from "../../contracts/meter-credits.ts";
import { recordWebhookEvents } from "../../jobs/webhook-outbox.ts";
import { setKeyStatus } from "../license-keys/license-keys.steps.ts";
import { toBenefitGrant } from "./benefit-grants.mapper.ts";
import { followDownloadableGrants } from "./downloadable-grants.ts";
import { grantsEmbedded } from "./benefit-grants.repository.ts";
import type { BenefitGrantProperties } from "./benefit-grants.schemas.ts";

export type BenefitGrantEventType = "benefit_grant.created" | "benefit_grant.updated" | "benefit_grant.revoked" | "benefit_grant.cycled";

/** What each event does to a `meter_credit` grant's customer meter (an update changes nothing). */
const CREDIT_KINDS: Partial<Record<BenefitGrantEventType, MeterCreditKind>> = {
  "benefit_grant.created": "grant",
  "benefit_grant.cycled": "cycle",
  "benefit_grant.revoked": "revoke",
};

/**
 * Records one `benefit_grant.*` event per grant, on the transaction of the change, each carrying
 * the grant as it is now (read back on that transaction), and schedules each grant's customer's
 * `customer.state_changed`, as every grant event does at the hosted service, and each `meter_credit`
 * grant's credit: the jobs in the events' statement. `previous` gives the properties before an
 * update, by grant id; the other events carry none.
 */
export async function publishGrantEvents(
  db: Executor,
  type: BenefitGrantEventType,
  ids: readonly string[],
  now: Date,
  previous: ReadonlyMap<string, BenefitGrantProperties> = new Map(),
): Promise<void> {
  const rows = await grantsEmbedded(db, ids);
  const byId = new Map(rows.map((row) => [row.id, row]));
  // In the order the changes were made, so the events' order follows it.
  const changed = ids.map((id) => {
    const row = byId.get(id);
    if (!row) throw new Error(`benefit grant ${id} vanished within its own transaction`);
    return row;
  });
  const kind = CREDIT_KINDS[type];
  const credits = kind
    ? changed.flatMap((row) =>
        row.benefit?.type === "meter_credit" ? [meterCreditJob({ grant_id: row.id, kind, at: now.toISOString() })] : [],
      )
    : [];
  const states = [...new Set(rows.map((row) => row.customer_id))].map(customerStateChangedJob);
  await recordWebhookEvents(
    db,
    changed.map((row) => ({
      organizationId: row.organization_id,
      type,
      data: { ...toBenefitGrant(row), previous_properties: previous.get(row.id) ?? null },
      now,
    })),
    [...credits, ...states],
  );
}

/**
 * Revokes or restores the license keys and the downloadable files of changed grants and records the grants' events (which tell
 * their customers' state): a restored grant is granted again, so it is `created` (as the hosted service sends it).
 */
export async function afterGrantChanges(
  db: Executor,
  changed: readonly { id: string; properties: Record<string, unknown> }[],
  granted: boolean,
  now: Date,
): Promise<number> {
  const keyIds = changed.flatMap(({ properties }) => (typeof properties.license_key_id === "string" ? [properties.license_key_id] : []));
  await setKeyStatus(db, keyIds, granted ? "granted" : "revoked", now);
  const ids = changed.map((grant) => grant.id).sort();
  await followDownloadableGrants(db, ids, now);
  await publishGrantEvents(db, granted ? "benefit_grant.created" : "benefit_grant.revoked", ids, now);
  return changed.length;
}
