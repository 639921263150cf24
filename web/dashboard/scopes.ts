// What the session's token may do, from the scopes the server read off it: a control the API would
// refuse is shown disabled, with the scope it needs.
import type { FormParts } from "./forms.ts";
import type { AppData } from "./router.ts";
import { h } from "./ui.ts";

export const holds = (data: AppData, scope: string): boolean => data.signedInAs.scopes === "all" || data.signedInAs.scopes.includes(scope);

/** Disables a control the token's scopes do not allow, and says why beside it; the reason, or null when allowed. */
export function guard(data: AppData, control: HTMLButtonElement, scope: string): string | null {
  if (holds(data, scope)) return null;
  control.disabled = true;
  const reason = `Your token lacks the ${scope} scope.`;
  control.title = reason;
  return reason;
}

/**
 * Disables the controls the token's scopes would have the API refuse, and says why in visible text
 * beside them (a tooltip alone reaches neither touch screens nor every screen reader); null when allowed.
 */
export function requireScope(data: AppData, scope: string, ...controls: HTMLButtonElement[]): HTMLElement | null {
  if (holds(data, scope)) return null;
  const reason = `Disabled: your token lacks the ${scope} scope.`;
  for (const control of controls) {
    control.disabled = true;
    control.title = reason;
  }
  return h("p", { class: "hint scope-reason" }, reason);
}

/** A form the token's scopes would have the API refuse: its submit disabled, the reason at the form's end. */
export function requireScopeForForm(data: AppData, scope: string, parts: Pick<FormParts, "form" | "submit">): void {
  const reason = requireScope(data, scope, parts.submit);
  if (reason) parts.form.append(reason);
}
