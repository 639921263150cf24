// Form pieces of the dashboard's pages: labelled controls (from ../dom.ts), the API's 422 entries
// shown next to their fields, and a submit that reports in the form's live region.
import { field, input, setFieldError, type Field } from "../dom.ts";
import type { ApiError, ApiResult } from "./api.ts";
import { errorNotice, h, notice } from "./ui.ts";

export { field, input, type Field };

export const textField = (
  label: string,
  name: string,
  value = "",
  attributes: Record<string, string | boolean> = {},
  hint?: string,
): Field => field(label, input({ type: "text", name, value, ...attributes }), hint);

export function selectField(label: string, name: string, options: readonly (readonly [string, string])[], value = ""): Field {
  const select = h("select", { name }, ...options.map(([v, text]) => h("option", { value: v, selected: v === value }, text)));
  const made = field(label, select);
  // A select always holds one of its options: never "(optional)".
  made.show(true, true);
  return made;
}

/** Amount typed in major units (`12.50`) → minor units, or null when it is not a number. */
export function minorUnits(text: string, perMajor: number): number | null {
  const value = Number(text.trim());
  return text.trim() !== "" && Number.isFinite(value) && value >= 0 ? Math.round(value * perMajor) : null;
}

export interface FormParts {
  form: HTMLFormElement;
  messages: HTMLElement;
  submit: HTMLButtonElement;
}

/** A form with its fields, a live region for what happened, and a submit button. */
export function formOf(label: string, submitText: string, ...children: (Node | null)[]): FormParts {
  const messages = h("div", { class: "messages", "aria-live": "polite" });
  const submit = h("button", { type: "submit", class: "button" }, submitText);
  const form = h("form", { class: "card", "aria-label": label, novalidate: true }, messages, ...children, h("p", {}, submit));
  return { form, messages, submit };
}

/** The same form headed by its label, for a page that holds several. */
export function formCard(label: string, submitText: string, ...children: (Node | null)[]): FormParts {
  const parts = formOf(label, submitText, ...children);
  parts.form.prepend(h("h2", {}, label));
  return parts;
}

/** Shows the API's refusal: each 422 entry next to its field (by name), the whole message on top. */
export function showError(parts: FormParts, fields: Record<string, Field>, error: ApiError): void {
  for (const [name, target] of Object.entries(fields)) setFieldError(target, error.fields[name] ?? null);
  parts.messages.replaceChildren(errorNotice(error));
}

/** Runs a submit: the button is off meanwhile; success says `done`, failure shows the API's words. */
export function onSubmit<T>(
  parts: FormParts,
  fields: Record<string, Field>,
  send: () => Promise<ApiResult<T>> | null,
  done: (body: T) => Node | string | void,
): void {
  parts.form.addEventListener("submit", (event) => {
    event.preventDefault();
    const pending = send();
    if (pending === null) return;
    parts.submit.disabled = true;
    void pending.then((result) => {
      parts.submit.disabled = false;
      if (!result.ok) return showError(parts, fields, result.error);
      for (const target of Object.values(fields)) setFieldError(target, null);
      const outcome = done(result.body);
      if (outcome) parts.messages.replaceChildren(typeof outcome === "string" ? notice("success", outcome) : outcome);
    });
  });
}
