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
}
export type LicenseKeyActivationRow = Selectable<LicenseKeyActivationsTable>;
