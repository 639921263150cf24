import { Type, type Static } from "@sinclair/typebox";
import { ListResource, OneOrMany, PaginationQuery, SortingQuery, CATALOG_SORTING } from "../../schema/pagination.ts";
import { MetadataInput, Nullable, Uuid4 } from "../../schema/primitives.ts";
import { CustomField, CustomFieldType } from "./custom-fields.schemas.ts";

// Properties arrive as the reference takes them, except that a null or empty value of an optional
// key is accepted and dropped (the hosted service's behaviour). Caps on text the reference leaves open:
// docs/decisions.md, "Custom fields".
const optionalText = (maxLength: number) => Type.Optional(Nullable(Type.String({ maxLength })));
const int32 = { minimum: -2147483648, maximum: 2147483647 };
const optionalInt = (bounds: { minimum: number; maximum: number }) => Type.Optional(Nullable(Type.Integer(bounds)));

const formInputs = {
  form_label: optionalText(256),
  form_help_text: optionalText(2000),
  form_placeholder: optionalText(256),
};

const TextPropertiesInput = Type.Object(
  {
    ...formInputs,
    textarea: Type.Optional(Nullable(Type.Boolean())),
    min_length: optionalInt({ minimum: 0, maximum: int32.maximum }),
    max_length: optionalInt({ minimum: 0, maximum: int32.maximum }),
  },
  { title: "CustomFieldTextProperties" },
);
const BoundsPropertiesInput = (title: string) => Type.Object({ ...formInputs, ge: optionalInt(int32), le: optionalInt(int32) }, { title });
const CheckboxPropertiesInput = Type.Object(formInputs, { title: "CustomFieldCheckboxProperties" });
const SelectPropertiesInput = Type.Object(
  {
    ...formInputs,
    options: Type.Array(
      Type.Object(
        { value: Type.String({ minLength: 1, maxLength: 256 }), label: Type.String({ minLength: 1, maxLength: 256 }) },
        { title: "CustomFieldSelectOption" },
      ),
      { minItems: 1, maxItems: 100 },
    ),
  },
  { title: "CustomFieldSelectProperties" },
);

const PROPERTIES = {
  text: TextPropertiesInput,
  number: BoundsPropertiesInput("CustomFieldNumberProperties"),
  date: BoundsPropertiesInput("CustomFieldDateProperties"),
  checkbox: CheckboxPropertiesInput,
  select: SelectPropertiesInput,
} as const;

/** Checked before any lowercasing: an uppercase letter is refused, not folded. */
export const Slug = Type.String({
  minLength: 1,
  maxLength: 100,
  pattern: "^[a-z0-9-_]+$",
  description: "Key the field's value is stored under; unique in the organization.",
});
const Name = Type.String({ minLength: 1, maxLength: 256, description: "Name of the custom field." });

const createShape = <K extends keyof typeof PROPERTIES>(type: K, title: string) =>
  Type.Object(
    {
      metadata: Type.Optional(MetadataInput()),
      type: Type.Literal(type),
      slug: Slug,
      name: Name,
      organization_id: Type.Optional(Nullable(Uuid4({ description: "Owning organization; required with a personal token." }))),
      properties: PROPERTIES[type],
    },
    { title },
  );

const updateShape = <K extends keyof typeof PROPERTIES>(type: K, title: string) =>
  Type.Object(
    {
      metadata: Type.Optional(MetadataInput()),
      name: Type.Optional(Nullable(Name)),
      slug: Type.Optional(Nullable(Slug)),
      type: Type.Literal(type),
      properties: Type.Optional(Nullable(PROPERTIES[type])),
    },
    { title },
  );

export const CustomFieldCreate = Type.Union(
  [
    createShape("text", "CustomFieldCreateText"),
    createShape("number", "CustomFieldCreateNumber"),
    createShape("date", "CustomFieldCreateDate"),
    createShape("checkbox", "CustomFieldCreateCheckbox"),
    createShape("select", "CustomFieldCreateSelect"),
  ],
  { title: "CustomFieldCreate" },
);
export type CustomFieldCreate = Static<typeof CustomFieldCreate>;

export const CustomFieldUpdate = Type.Union(
  [
    updateShape("text", "CustomFieldUpdateText"),
    updateShape("number", "CustomFieldUpdateNumber"),
    updateShape("date", "CustomFieldUpdateDate"),
    updateShape("checkbox", "CustomFieldUpdateCheckbox"),
    updateShape("select", "CustomFieldUpdateSelect"),
  ],
  { title: "CustomFieldUpdate" },
);
export type CustomFieldUpdate = Static<typeof CustomFieldUpdate>;

/** The properties of any type as the input carries them, before the empty keys are dropped. */
export type CustomFieldPropertiesInput = Static<(typeof PROPERTIES)[keyof typeof PROPERTIES]>;

export const CustomFieldSortKeys = ["created_at", "slug", "name", "type"] as const;
export const CustomFieldListQuery = Type.Object({
  organization_id: OneOrMany(Uuid4(), "Filter by organization ID.", { listOnly: true }),
  query: Type.Optional(Type.String({ maxLength: 256, description: "Filter by custom field name or slug." })),
  type: OneOrMany(CustomFieldType, "Filter by custom field type.", { listOnly: true }),
  ...PaginationQuery,
  sorting: SortingQuery(CustomFieldSortKeys, ["slug"], CATALOG_SORTING, { title: "CustomFieldSortProperty" }),
});
export type CustomFieldListQuery = Static<typeof CustomFieldListQuery>;

export const ListResourceCustomField = ListResource(CustomField, { title: "ListResource[CustomField]" });
export type ListResourceCustomField = Static<typeof ListResourceCustomField>;
