import { Type, type Static, type TObject, type TProperties } from "@sinclair/typebox";
import { DateTime, MetadataOutput, Nullable, StringEnum, Uuid4 } from "../../schema/primitives.ts";

export const CustomFieldTypeValues = ["text", "number", "date", "checkbox", "select"] as const;
export const CustomFieldType = StringEnum(CustomFieldTypeValues, { title: "CustomFieldType" });

const int32 = { minimum: -2147483648, maximum: 2147483647 };
const label = Type.String({ minLength: 1 });

const formFields = {
  form_label: Type.Optional(label),
  form_help_text: Type.Optional(label),
  form_placeholder: Type.Optional(label),
};

export const CustomFieldTextProperties = Type.Object(
  {
    ...formFields,
    textarea: Type.Optional(Type.Boolean()),
    min_length: Type.Optional(Type.Integer({ minimum: 0, maximum: int32.maximum })),
    max_length: Type.Optional(Type.Integer({ minimum: 0, maximum: int32.maximum })),
  },
  { title: "CustomFieldTextProperties" },
);

export const CustomFieldNumberProperties = Type.Object(
  { ...formFields, ge: Type.Optional(Type.Integer(int32)), le: Type.Optional(Type.Integer(int32)) },
  { title: "CustomFieldNumberProperties" },
);

export const CustomFieldDateProperties = Type.Object(
  { ...formFields, ge: Type.Optional(Type.Integer(int32)), le: Type.Optional(Type.Integer(int32)) },
  { title: "CustomFieldDateProperties" },
);

export const CustomFieldCheckboxProperties = Type.Object(formFields, { title: "CustomFieldCheckboxProperties" });

export const CustomFieldSelectOption = Type.Object(
  { value: Type.String({ minLength: 1 }), label: Type.String({ minLength: 1 }) },
  { title: "CustomFieldSelectOption" },
);

export const CustomFieldSelectProperties = Type.Object(
  { ...formFields, options: Type.Array(CustomFieldSelectOption, { minItems: 1 }) },
  { title: "CustomFieldSelectProperties" },
);

const customField = <K extends string, P extends TProperties>(title: string, type: K, properties: TObject<P>) =>
  Type.Object(
    {
      created_at: DateTime({ description: "Creation timestamp of the object." }),
      modified_at: Nullable(DateTime(), { description: "Last modification timestamp of the object." }),
      id: Uuid4({ description: "The ID of the object." }),
      metadata: MetadataOutput(),
      type: Type.Literal(type),
      slug: Type.String({ description: "Key under which the field's value is stored." }),
      name: Type.String({ description: "Name of the custom field." }),
      organization_id: Uuid4({ description: "ID of the organization owning the custom field." }),
      properties,
    },
    { title, description: `Custom field of type ${type}.` },
  );

export const CustomFieldText = customField("CustomFieldText", "text", CustomFieldTextProperties);
export type CustomFieldText = Static<typeof CustomFieldText>;
export const CustomFieldNumber = customField("CustomFieldNumber", "number", CustomFieldNumberProperties);
export type CustomFieldNumber = Static<typeof CustomFieldNumber>;
export const CustomFieldDate = customField("CustomFieldDate", "date", CustomFieldDateProperties);
export type CustomFieldDate = Static<typeof CustomFieldDate>;
export const CustomFieldCheckbox = customField("CustomFieldCheckbox", "checkbox", CustomFieldCheckboxProperties);
export type CustomFieldCheckbox = Static<typeof CustomFieldCheckbox>;
export const CustomFieldSelect = customField("CustomFieldSelect", "select", CustomFieldSelectProperties);
export type CustomFieldSelect = Static<typeof CustomFieldSelect>;

/** Custom field record, discriminated by `type`. */
export const CustomField = Type.Union([CustomFieldText, CustomFieldNumber, CustomFieldDate, CustomFieldCheckbox, CustomFieldSelect], {
  title: "CustomField",
});
export type CustomField = Static<typeof CustomField>;

export const AttachedCustomField = Type.Object(
  {
    custom_field_id: Uuid4({ description: "ID of the custom field." }),
    custom_field: CustomField,
    order: Type.Integer({ description: "Position of the field within the resource." }),
    required: Type.Boolean({ description: "Whether a value must be provided for the field." }),
  },
  { title: "AttachedCustomField", description: "Custom field attached to a resource." },
);
export type AttachedCustomField = Static<typeof AttachedCustomField>;
