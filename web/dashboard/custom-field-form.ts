// Creating one of the organization's custom fields from a product's page (POST /v1/custom-fields/),
// so a seller can ask a new question at checkout without leaving the product. A select's options
// are typed one a line; each option's stored value is its label.
import { request } from "./api.ts";
import { field, formCard, onSubmit, selectField, textField, type Field } from "./forms.ts";
import type { CustomField } from "./product-custom-fields.ts";
import type { AppData } from "./router.ts";
import { requireScopeForForm } from "./scopes.ts";
import { h } from "./ui.ts";

const TYPES = [
  ["text", "Text"],
  ["number", "Number"],
  ["date", "Date"],
  ["checkbox", "Checkbox"],
  ["select", "Choice from a list"],
] as const;

/** `Company size` → `company-size`: the API's slug alphabet (lowercase letters, digits, `-` and `_`). */
const slugOf = (name: string): string =>
  name
    .normalize("NFKD")
    .toLowerCase()
    .replace(/[^a-z0-9_]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 100);

export function customFieldForm(data: AppData, created: (customField: CustomField) => void): HTMLFormElement {
  // Not "Name": the product's form above has one, and the checkout shows this as the question.
  const name = textField("Question", "name", "", { required: true, maxlength: "256" }, "What the checkout asks, like “Company”.");
  const slug = textField(
    "Key",
    "slug",
    "",
    { required: true, maxlength: "100" },
    "Where the answer is stored: lowercase letters, digits, - and _.",
  );
  const type = selectField("Type", "type", TYPES, "text");
  const options = field("Options", h("textarea", { name: "options", rows: "3" }), "One a line.");
  // The key follows the name until the seller types one of their own.
  let slugTyped = false;
  slug.control.addEventListener("input", () => (slugTyped = slug.control.value !== ""));
  name.control.addEventListener("input", () => {
    if (!slugTyped) slug.control.value = slugOf(name.control.value);
  });
  const sync = () => options.show(type.control.value === "select", true);
  type.control.addEventListener("change", sync);
  sync();
  const parts = formCard("New custom field", "Create custom field", name.wrapper, slug.wrapper, type.wrapper, options.wrapper);
  requireScopeForForm(data, "custom_fields:write", parts);
  const fields: Record<string, Field> = { name, slug, type, options };
  onSubmit(
    parts,
    fields,
    () => {
      const labels = options.control.value
        .split("\n")
        .map((line) => line.trim())
        .filter(Boolean);
      return request<CustomField>("POST", "custom-fields/", {
        type: type.control.value,
        name: name.control.value.trim(),
        slug: slug.control.value.trim(),
        properties: type.control.value === "select" ? { options: labels.map((label) => ({ value: label, label })) } : {},
      });
    },
    (customField) => {
      parts.form.reset();
      slugTyped = false;
      sync();
      created(customField);
      return `Custom field “${customField.name}” created, and ticked above to be asked for.`;
    },
  );
  return parts.form;
}
