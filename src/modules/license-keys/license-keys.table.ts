import type { ColumnType, Generated, Selectable } from "kysely";
import type { JsonValue } from "../../db/json.ts";

type Json<T> = ColumnType<T, string | undefined, string>;

export type LicenseKeyStatus = "granted" | "revoked" | "disabled";

export interface LicenseKeysTable {
  id: Generated<string>;
  created_at: Generated<Date>;
  modified_at: Date | null;
  deleted_at: Date | null;
  organization_id: string;
  customer_id: string;
  benefit_id: string;
  key: string;
  status: Generated<LicenseKeyStatus>;
  limit_activations: number | null;
  limit_usage: number | null;
  usage: Generated<number>;
  validations: Generated<number>;
  last_validated_at: Date | null;
  expires_at: Date | null;
  /** Days a license file of this key lasts before a refresh (its benefit's extension); null: the default. */
  license_file_ttl_days: number | null;
  /** Seconds between an activation's heartbeats (its benefit's extension); null: activations never lapse. */
  heartbeat_interval_seconds: number | null;
  /** Seconds of silence tolerated past the interval before the activation is deactivated. */
  heartbeat_grace_seconds: number | null;
}
export type LicenseKeyRow = Selectable<LicenseKeysTable>;

export interface LicenseKeyActivationsTable {
  id: Generated<string>;
  created_at: Generated<Date>;
  modified_at: Date | null;
  deleted_at: Date | null;
  organization_id: string;
  license_key_id: string;
  label: string;
  conditions: Json<Record<string, JsonValue>>;
  meta: Json<Record<string, JsonValue>>;
  last_heartbeat_at: Date | null;
}
export type LicenseKeyActivationRow = Selectable<LicenseKeyActivationsTable>;

/** An organization's Ed25519 key signing license files; the private half sealed (`values/sealed-secrets.ts`). */
export interface LicenseSigningKeysTable {
  id: Generated<string>;
  created_at: Date;
  organization_id: string;
  /** The raw 32-byte public key, base64url (the JWK's `x`). */
  public_key: string;
  private_key_sealed: string;
  retired_at: Date | null;
  /** The latest refresh deadline of a file it signed: a retired key is published until then. */
  signed_until: Date | null;
}
export type LicenseSigningKeyRow = Selectable<LicenseSigningKeysTable>;
