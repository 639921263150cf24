import type { Deps } from "../context.ts";
import type { OrganizationScope } from "../http/auth.ts";
import { syncLicenseKeyGrant } from "../modules/benefits/benefit-revocations.steps.ts";
import type { LicenseKeyRead, LicenseKeyUpdate } from "../modules/license-keys/license-keys.schemas.ts";
import { changeLicenseKey, licenseKeyRead } from "../modules/license-keys/license-keys.steps.ts";

// `PATCH /v1/license-keys/{id}`: the seller's change of a key, and the benefit grant that issued it
// following its status, in one transaction.

/**
 * Changes a key of the caller's organizations. Revoked, its grant is revoked; granted again (from
 * revoked or disabled), its revoked grant is granted again; disabled, the grant stays as it is.
 */
async function updateLicenseKey(deps: Deps, id: string, input: LicenseKeyUpdate, allowed: OrganizationScope): Promise<LicenseKeyRead> {
  return deps.db.transaction().execute(async (trx) => {
    const now = deps.now();
    const { previous, key } = await changeLicenseKey(trx, id, input, allowed, now);
    if (key.status !== previous.status && key.status !== "disabled") await syncLicenseKeyGrant(trx, key, key.status === "granted", now);
    return licenseKeyRead(trx, key);
  });
}

/** The flow bound to the application's dependencies: the update route. */
export const licenseKeyUpdating = (deps: Deps) => ({
  update: (id: string, input: LicenseKeyUpdate, allowed: OrganizationScope) => updateLicenseKey(deps, id, input, allowed),
});
