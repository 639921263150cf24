import { isoFrom, isoFromOrNull, type EitherTimestamps, type Jsonified } from "../../db/jsonified.ts";
import type { AttachedCustomField, CustomField } from "./custom-fields.schemas.ts";
import type { CustomFieldRow } from "./custom-fields.table.ts";

/** A field attached to a product, read through JSON aggregation: the field and its attachment. */
export type AttachedCustomFieldJson = Jsonified<CustomFieldRow> & { position: number; required: boolean };

export function toCustomField(row: EitherTimestamps<CustomFieldRow>): CustomField {
  const record = {
    created_at: isoFrom(row.created_at),
    modified_at: isoFromOrNull(row.modified_at),
    id: row.id,
    metadata: row.metadata,
    slug: row.slug,
    name: row.name,
    organization_id: row.organization_id,
  };
  // The service writes a type and its properties together and never changes the type, so the
  // stored pair is one of the shapes; TypeScript cannot relate two columns by itself.
  return { ...record, type: row.type, properties: row.properties } as CustomField;
}

export const toAttachedCustomField = (row: AttachedCustomFieldJson): AttachedCustomField => ({
  custom_field_id: row.id,
  custom_field: toCustomField(row),
  order: row.position,
  required: row.required,
});
