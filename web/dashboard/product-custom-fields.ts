// The custom fields a product's checkout asks for, read back as its `attached_custom_fields`: those
// already attached, in their order, then those the seller adds by searching the organization's fields
// (GET /v1/custom-fields/, by name or key), each one required or not.
import { field, input } from "./forms.ts";
import { picker } from "./picker.ts";
import type { AppData } from "./router.ts";
import { holds } from "./scopes.ts";
import { h, notice } from "./ui.ts";

export interface CustomField {
  id: string;
  name: string;
  type: string;
}

export interface AttachedCustomField {
  custom_field_id: string;
  custom_field: CustomField;
  order: number;
  required: boolean;
}

export interface CustomFieldPicker {
  element: HTMLElement;
  /** What to send as `attached_custom_fields`, in display order. */
  read(): { custom_field_id: string; required: boolean }[];
  /** A field just created: listed last, asked for (not required). */
  add: (customField: CustomField) => void;
}

const textOf = (customField: CustomField): string => `“${customField.name}” (${customField.type})`;

export function customFieldPicker(data: AppData, attached: readonly AttachedCustomField[]): CustomFieldPicker {
  const legend = h("legend", {}, "Custom fields at checkout");
  const inOrder = [...attached].sort((a, b) => a.order - b.order);
  if (!holds(data, "custom_fields:read") && !holds(data, "custom_fields:write"))
    return {
      element: h(
        "fieldset",
        {},
        legend,
        notice("info", "Your token lacks the custom_fields:read scope: the custom fields cannot be listed."),
      ),
      // Nothing can be chosen here: what is attached stays as it is.
      read: () => inOrder.map((a) => ({ custom_field_id: a.custom_field_id, required: a.required })),
      add: () => undefined,
    };
  // Each chosen field's "required" box, kept while the field stays chosen (a new search keeps it).
  const required = new Map<string, { wrapper: HTMLElement; box: HTMLInputElement }>();
  const requiredBox = (customField: CustomField): Node => {
    let made = required.get(customField.id);
    if (!made) {
      const box = input({ type: "checkbox", name: "required" });
      box.checked = attached.find((a) => a.custom_field_id === customField.id)?.required ?? false;
      made = { wrapper: field(`Require “${customField.name}”`, box).wrapper, box };
      required.set(customField.id, made);
    }
    return made.wrapper;
  };
  const chosen = picker<CustomField>({
    label: "Ask for a custom field",
    hint: "Search by question or key. The checkout asks the fields below, in this order.",
    path: "custom-fields/",
    filters: { sorting: "name" },
    noun: ["custom field", "custom fields"],
    text: textOf,
    multiple: true,
    chosen: inOrder.map((a) => a.custom_field),
    detail: requiredBox,
    changed: (fields) => {
      // A field no longer chosen loses its box: chosen again, it starts as the product has it.
      for (const id of required.keys()) if (!fields.some((f) => f.id === id)) required.delete(id);
    },
  });
  return {
    element: h("fieldset", { class: "custom-fields" }, legend, chosen.field.wrapper),
    read: () => chosen.chosen().map((f) => ({ custom_field_id: f.id, required: required.get(f.id)?.box.checked ?? false })),
    add: (customField) => chosen.choose(customField),
  };
}
