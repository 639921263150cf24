// What the session's token may do, from the scopes the server read off it: a control the API would
// refuse is shown disabled, with the scope it needs.
import type { AppData } from "./router.ts";

export const holds = (data: AppData, scope: string): boolean => data.signedInAs.scopes === "all" || data.signedInAs.scopes.includes(scope);

/** Disables a control the token's scopes do not allow, and says why beside it; the reason, or null when allowed. */
export function guard(data: AppData, control: HTMLButtonElement, scope: string): string | null {
  if (holds(data, scope)) return null;
  control.disabled = true;
  const reason = `Your token lacks the ${scope} scope.`;
  control.title = reason;
  return reason;
}
