import type { Deps } from "../../context.ts";
import type { Executor } from "../../db/database.ts";
import { ResourceNotFound } from "../../http/errors.ts";
import * as repo from "./license-keys.repository.ts";
import type { LicenseKeyDeactivate } from "./license-keys.schemas.ts";
import { assertValidKey } from "./license-key-validity.ts";
import type { LicenseKeyRow } from "./license-keys.table.ts";

// Activations that free themselves (an extension): heartbeats record that an activation is alive,
// and the cull deactivates those silent past their key's grace (flows/cull-silent-activations.ts).

/** An activation's sign of life: a live activation of a valid key (validate's 404s otherwise) records it. */
export async function recordLicenseKeyHeartbeat(deps: Deps, input: LicenseKeyDeactivate): Promise<void> {
  const now = deps.now();
  const key = await repo.findKeyByValue(deps.db, input.organization_id, input.key);
  assertValidKey(key, now);
  if (!(await repo.recordHeartbeat(deps.db, key.id, input.activation_id, now))) throw new ResourceNotFound();
}

/**
 * Deactivates the key's activations silent past its heartbeat grace, in the caller's transaction,
 * holding the key's row as an activation does; returns the key and the culled ids (none when the
 * key is gone or none lapsed).
 */
export async function cullSilentActivations(
  db: Executor,
  keyId: string,
  now: Date,
): Promise<{ key: LicenseKeyRow; culled: string[] } | null> {
  const key = await repo.findKeyForUpdate(db, keyId, null);
  return key ? { key, culled: await repo.deactivateSilentActivations(db, key, now) } : null;
}
