// The custom fields a product's checkout asks for: the organization's fields (GET /v1/custom-fields/),
// each one asked or not, required or not, read back as the product's `attached_custom_fields` (the
// fields the product asks for first, in their order, then the others).
import { list } from "./api.ts";
import { field, input, type Field } from "./forms.ts";
import type { AppData } from "./router.ts";
import { holds } from "./scopes.ts";
import { errorNotice, h, notice } from "./ui.ts";

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

/** As many as an organization keeps in practice; more are named in a notice rather than paged. */
const LISTED = 100;

const checkbox = (label: string, name: string, checked: boolean): Field => field(label, input({ type: "checkbox", name, checked }));

export async function customFieldPicker(data: AppData, attached: readonly AttachedCustomField[]): Promise<CustomFieldPicker> {
  const legend = h("legend", {}, "Custom fields at checkout");
  const unchanged = (element: HTMLElement): CustomFieldPicker => ({
    element,
    // Nothing can be chosen here: what is attached stays as it is.
    read: () => attached.map((a) => ({ custom_field_id: a.custom_field_id, required: a.required })),
    add: () => undefined,
  });
  if (!holds(data, "custom_fields:read") && !holds(data, "custom_fields:write"))
    return unchanged(
      h("fieldset", {}, legend, notice("info", "Your token lacks the custom_fields:read scope: the custom fields cannot be listed.")),
    );
  const answer = await list<CustomField>("custom-fields/", { limit: LISTED, sorting: "name" });
  if (!answer.ok) return unchanged(h("fieldset", {}, legend, errorNotice(answer.error)));
  const byId = new Map(answer.body.items.map((f) => [f.id, f]));
  const ordered = [
    ...[...attached].sort((a, b) => a.order - b.order).map((a) => byId.get(a.custom_field_id) ?? a.custom_field),
    ...answer.body.items.filter((f) => !attached.some((a) => a.custom_field_id === f.id)),
  ];
  const row = (customField: CustomField, current: { required: boolean } | undefined) => {
    const asked = checkbox(`Ask for “${customField.name}” (${customField.type})`, "custom_field", current !== undefined);
    const required = checkbox(`Require “${customField.name}”`, "required", current?.required ?? false);
    const askedBox = asked.control as HTMLInputElement;
    const requiredBox = required.control as HTMLInputElement;
    // A field not asked for cannot be required.
    const sync = () => {
      requiredBox.disabled = !askedBox.checked;
      if (!askedBox.checked) requiredBox.checked = false;
    };
    askedBox.addEventListener("change", sync);
    sync();
    return { customField, askedBox, requiredBox, element: h("div", { class: "custom-field-choice" }, asked.wrapper, required.wrapper) };
  };
  const rows = ordered.map((customField) =>
    row(
      customField,
      attached.find((a) => a.custom_field_id === customField.id),
    ),
  );
  const none = notice("info", "No custom fields yet: the checkout asks for none.");
  const choices = h("div", {}, ...(rows.length ? rows.map((r) => r.element) : [none]));
  const more =
    answer.body.pagination.total_count > LISTED
      ? notice("info", `The first ${LISTED} of ${answer.body.pagination.total_count} custom fields, by name.`)
      : null;
  return {
    element: h("fieldset", { class: "custom-fields" }, legend, choices, more),
    read: () => rows.filter((r) => r.askedBox.checked).map((r) => ({ custom_field_id: r.customField.id, required: r.requiredBox.checked })),
    add: (customField) => {
      none.remove();
      const added = row(customField, { required: false });
      rows.push(added);
      choices.append(added.element);
    },
  };
}
