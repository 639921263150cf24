import type { ColumnType, Generated, Selectable } from "kysely";
import type { Metadata } from "../../schema/primitives.ts";

type Json<T> = ColumnType<T, string | undefined, string>;

export type CustomFieldType = "text" | "number" | "date" | "checkbox" | "select";

/** The properties of every type, as stored: keys a type does not have are absent. */
export interface StoredCustomFieldProperties {
  form_label?: string;
  form_help_text?: string;
  form_placeholder?: string;
  textarea?: boolean;
  min_length?: number;
  max_length?: number;
  ge?: number;
  le?: number;
  options?: { value: string; label: string }[];
}

export interface CustomFieldsTable {
  id: Generated<string>;
  created_at: Generated<Date>;
  modified_at: Date | null;
  deleted_at: Date | null;
  organization_id: string;
  type: CustomFieldType;
  slug: string;
  name: string;
  properties: Json<StoredCustomFieldProperties>;
  metadata: Json<Metadata>;
}
export type CustomFieldRow = Selectable<CustomFieldsTable>;

/** A custom field attached to a product, at a position, required or not. */
export interface ProductCustomFieldsTable {
  organization_id: string;
  product_id: string;
  custom_field_id: string;
  position: number;
  required: boolean;
}
