import type { Deps } from "../context.ts";
import { licenseKeyGrantUpdated } from "../modules/benefits/benefit-revocations.steps.ts";
import { cullSilentActivations, keysWithSilentActivations } from "../modules/license-keys/license-keys.steps.ts";

// The `license_keys:cull_activations` task: activations of keys with a heartbeat interval that fell
// silent past their grace are deactivated, freeing their slots, each key's grant announcing it.

/** Keys handled per run; the next minute's run takes the rest. */
const KEYS_PER_RUN = 500;

/**
 * One transaction per key: the key's row is locked as an activation locks it, so a new activation
 * counts the slots either before or after the cull, never in between, and the grant's
 * `benefit_grant.updated` commits with the deactivations. Returns how many activations were culled.
 */
export async function cullSilentLicenseActivations(deps: Deps): Promise<number> {
  const now = deps.now();
  let culled = 0;
  for (const keyId of await keysWithSilentActivations(deps.db, now, KEYS_PER_RUN)) {
    culled += await deps.db.transaction().execute(async (trx) => {
      const result = await cullSilentActivations(trx, keyId, now);
      if (!result || result.culled.length === 0) return 0;
      await licenseKeyGrantUpdated(trx, result.key, now);
      return result.culled.length;
    });
  }
  return culled;
}
