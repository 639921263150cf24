// DOM helpers of the checkout page: elements built from data with textContent and attributes only
// (never markup from strings), so nothing the API returns can become HTML.

type Attributes = Record<string, string | number | boolean | null | undefined>;
type Child = Node | string | null | false;

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Attributes = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === null || value === undefined || value === false) continue;
    element.setAttribute(name, value === true ? "" : String(value));
  }
  for (const child of children) if (child !== null && child !== false) element.append(child);
  return element;
}

export type Control = HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement;

/** A labelled control with its hint and its error message, tied together for assistive technology. */
export interface Field {
  wrapper: HTMLElement;
  control: Control;
  error: HTMLElement;
  /** Shows the field or hides it; a hidden field is never required. */
  show(visible: boolean, required?: boolean): void;
}

let fieldCount = 0;

export function field(label: string, control: Control, hint?: string): Field {
  fieldCount += 1;
  const id = `field-${fieldCount}`;
  control.id = id;
  const error = h("p", { class: "field-error", id: `${id}-error`, hidden: true });
  const hintElement = hint ? h("p", { class: "hint", id: `${id}-hint` }, hint) : null;
  control.setAttribute("aria-describedby", [hintElement?.id, error.id].filter(Boolean).join(" "));
  const optional = h("span", { class: "optional" }, " (optional)");
  const isCheckbox = control instanceof HTMLInputElement && control.type === "checkbox";
  const labelElement = h("label", { for: id }, label, isCheckbox ? null : optional);
  const wrapper = isCheckbox
    ? h("div", { class: "field checkbox" }, control, labelElement, hintElement, error)
    : h("div", { class: "field" }, labelElement, hintElement, control, error);
  const result: Field = {
    wrapper,
    control,
    error,
    show(visible, required = false) {
      wrapper.hidden = !visible;
      control.disabled = !visible;
      control.required = visible && required;
      optional.hidden = required;
    },
  };
  result.show(true, control.required);
  return result;
}

/** Shows (or clears, with null) the message under a field. */
export function setFieldError(target: Field, message: string | null): void {
  target.error.textContent = message ?? "";
  target.error.hidden = message === null;
  if (message === null) target.control.removeAttribute("aria-invalid");
  else target.control.setAttribute("aria-invalid", "true");
}

export const input = (attributes: Attributes): HTMLInputElement => h("input", attributes);
