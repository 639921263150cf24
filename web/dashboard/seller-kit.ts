// Pieces the seller's pages (customers, subscriptions, discounts, links, usage, emails, settings)
// share: what the token may do, forms that report in a live region, and links one copies.
import { field, input, setFieldError, type Field } from "../dom.ts";
import type { ApiResult } from "./api.ts";
import type { AppData } from "./router.ts";
import { button, errorNotice, h, notice } from "./ui.ts";

export { field, input, type Field };

/** Whether the session's token holds a scope (an owner's token holds them all). */
export const allows = (data: AppData, scope: string): boolean => data.signedInAs.scopes === "all" || data.signedInAs.scopes.includes(scope);

/**
 * Disables the controls the token's scopes would have the API refuse, and says why in visible text
 * beside them (a tooltip alone reaches neither touch screens nor every screen reader); null when allowed.
 */
export function requireScope(data: AppData, scope: string, ...controls: HTMLButtonElement[]): HTMLElement | null {
  if (allows(data, scope)) return null;
  const reason = `Disabled: your token lacks the ${scope} scope.`;
  for (const control of controls) {
    control.disabled = true;
    control.title = reason;
  }
  return h("p", { class: "hint scope-reason" }, reason);
}

export interface FormParts {
  form: HTMLFormElement;
  messages: HTMLElement;
  submit: HTMLButtonElement;
}

/** A labelled form with a live region for what happened and a submit button. */
export function formCard(label: string, submitText: string, ...children: (Node | null)[]): FormParts {
  const messages = h("div", { class: "messages", "aria-live": "polite" });
  const submit = h("button", { type: "submit", class: "button" }, submitText);
  const form = h(
    "form",
    { class: "card", "aria-label": label, novalidate: true },
    h("h2", {}, label),
    messages,
    ...children,
    h("p", {}, submit),
  );
  return { form, messages, submit };
}

/** Sends the form's request on submit: the API's 422 entries go next to their fields (by name), the message on top. */
export function onSubmit<T>(
  parts: FormParts,
  fields: Record<string, Field>,
  send: () => Promise<ApiResult<T>>,
  done: (body: T) => Node | string,
): void {
  parts.form.addEventListener("submit", (event) => {
    event.preventDefault();
    parts.submit.disabled = true;
    void send().then((result) => {
      parts.submit.disabled = false;
      for (const [name, target] of Object.entries(fields)) setFieldError(target, result.ok ? null : (result.error.fields[name] ?? null));
      if (!result.ok) return parts.messages.replaceChildren(errorNotice(result.error));
      const outcome = done(result.body);
      parts.messages.replaceChildren(typeof outcome === "string" ? notice("success", outcome) : outcome);
    });
  });
}

let copyCount = 0;

/** A value to copy (a link, a token): read-only, selectable, with a button that copies it and says so. */
export function copyable(label: string, value: string): HTMLElement {
  copyCount += 1;
  const id = `copy-${copyCount}`;
  // Not `field()`: a read-only value is not an optional input.
  const box = h("input", { id, type: "text", readonly: true, value, class: "copy-value", spellcheck: "false" });
  const status = h("span", { class: "copy-status", role: "status" });
  const copy = button("Copy", { class: "button button-quiet", "aria-label": `Copy ${label.toLowerCase()}` });
  copy.addEventListener("click", () => {
    box.select();
    void navigator.clipboard.writeText(value).then(
      () => (status.textContent = "Copied."),
      () => (status.textContent = "Selected: press Ctrl+C (⌘C) to copy."),
    );
  });
  return h("div", { class: "copyable field" }, h("label", { for: id }, label), box, h("p", {}, copy, " ", status));
}

/** A select of fixed choices, as a labelled field. */
export function choice(label: string, name: string, options: readonly (readonly [string, string])[], value = ""): Field {
  return field(label, h("select", { name }, ...options.map(([v, text]) => h("option", { value: v, selected: v === value }, text))));
}
