import { ResourceNotFound } from "../../http/errors.ts";
import type { LicenseKeyRow } from "./license-keys.table.ts";

// What makes a key usable, shared by validation, activation, heartbeats and license files. The
// hosted service's messages, word for word: clients match on them.
const NO_LONGER_ACTIVE = "License key is no longer active.";
export const EXPIRED = "License key has expired.";

export const isExpired = (key: LicenseKeyRow, now: Date): boolean => key.expires_at !== null && now.getTime() >= key.expires_at.getTime();

/** What a validation answers a key it cannot vouch for: unknown, no longer granted or expired (404s). */
export function assertValidKey(key: LicenseKeyRow | undefined, now: Date): asserts key is LicenseKeyRow {
  if (!key) throw new ResourceNotFound();
  if (key.status !== "granted") throw new ResourceNotFound(NO_LONGER_ACTIVE);
  if (isExpired(key, now)) throw new ResourceNotFound(EXPIRED);
}
