import type { JsonValue } from "../../db/json.ts";
import { isoFromJson, isoFromJsonOrNull, type Jsonified } from "../../db/jsonified.ts";
import type { Metadata } from "../../schema/primitives.ts";
import type { Benefit, BenefitLicenseKeys, BenefitPublic, BenefitVisibility } from "./benefits.schemas.ts";
import type { BenefitRow } from "./benefits.table.ts";

export type BenefitJson = Jsonified<BenefitRow>;

/** A benefit row as read directly (Date) or through JSON aggregation (text timestamps). */
export interface BenefitSource {
  id: string;
  created_at: Date | string;
  modified_at: Date | string | null;
  organization_id: string;
  type: string;
  description: string;
  selectable: boolean;
  deletable: boolean;
  is_deleted: boolean;
  visibility: BenefitVisibility;
  properties: Record<string, JsonValue>;
  metadata: Metadata;
}

const iso = (value: Date | string): string => new Date(value).toISOString();

type LicenseKeyProperties = BenefitLicenseKeys["properties"];

export const licenseKeyProperties = (stored: Record<string, JsonValue>): LicenseKeyProperties => {
  const typed = stored as Partial<LicenseKeyProperties>;
  return {
    prefix: typed.prefix ?? null,
    expires: typed.expires ?? null,
    activations: typed.activations ?? null,
    limit_usage: typed.limit_usage ?? null,
    ...(typeof typed.license_file_ttl_days === "number" ? { license_file_ttl_days: typed.license_file_ttl_days } : {}),
    ...(typed.heartbeat ? { heartbeat: typed.heartbeat } : {}),
  };
};

export function toBenefit(row: BenefitSource): Benefit {
  const fields = {
    id: row.id,
    created_at: iso(row.created_at),
    modified_at: row.modified_at === null ? null : iso(row.modified_at),
    description: row.description,
    selectable: row.selectable,
    deletable: row.deletable,
    is_deleted: row.is_deleted,
    organization_id: row.organization_id,
    metadata: row.metadata,
    visibility: row.visibility,
    visibility_configurable: true,
  };
  switch (row.type) {
    case "license_keys":
      return { ...fields, type: "license_keys", properties: licenseKeyProperties(row.properties) };
    case "custom":
      return { ...fields, type: "custom", properties: { note: typeof row.properties.note === "string" ? row.properties.note : null } };
    case "feature_flag":
      return { ...fields, type: "feature_flag", properties: {} };
    default:
      // Only this service writes benefits, and it creates the types above; rows of other types
      // come from integrations that store their properties in the reference's own shape.
      return { ...fields, type: row.type, properties: row.properties } as unknown as Benefit;
  }
}

export const toBenefitPublic = (row: BenefitJson): BenefitPublic => ({
  id: row.id,
  created_at: isoFromJson(row.created_at),
  modified_at: isoFromJsonOrNull(row.modified_at),
  type: row.type as BenefitPublic["type"],
  description: row.description,
  selectable: row.selectable,
  deletable: row.deletable,
  is_deleted: row.is_deleted,
  organization_id: row.organization_id,
});
