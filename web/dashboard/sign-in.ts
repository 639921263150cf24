// The views before the dashboard: pasting a token, then choosing one of the organizations it sees.
// The token goes to the server once, which keeps it sealed in an HttpOnly cookie; nothing is stored
// in the browser's storage.
import { field, input, setFieldError } from "../dom.ts";
import type { DashboardPageData } from "../../src/modules/dashboard-page/dashboard-page.render.ts";
import { configureApi, sessionPost } from "./api.ts";
import { button, h, notice } from "./ui.ts";

const REASONS = {
  expired: "Your session has ended, or the token was revoked or expired. Sign in again.",
  "signed-out": "You are signed out.",
} as const;

function frame(root: HTMLElement, ...children: Node[]): void {
  root.replaceChildren(h("main", { id: "main", class: "sign-in" }, ...children));
}

export function signInView(root: HTMLElement, data: Extract<DashboardPageData, { view: "sign-in" }>): void {
  const token = field(
    "Access token",
    input({ type: "password", name: "token", autocomplete: "off", spellcheck: "false", required: true, maxlength: "256" }),
    "An organization access token (polar_oat_…) or your personal access token (polar_pat_…). It is kept only in this browser session's cookie.",
  );
  const message = h("div", { class: "messages", "aria-live": "polite" }, data.reason ? notice("info", REASONS[data.reason]) : null);
  const submit = h("button", { type: "submit", class: "button" }, "Sign in");
  const form = h("form", { class: "card", novalidate: true }, token.wrapper, submit);
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const value = token.control.value.trim();
    if (!value) {
      setFieldError(token, "Paste an access token.");
      token.control.focus();
      return;
    }
    submit.disabled = true;
    void fetch("/dashboard/session", {
      method: "POST",
      headers: { "content-type": "application/json" },
      credentials: "same-origin",
      body: JSON.stringify({ token: value }),
    }).then(async (response) => {
      submit.disabled = false;
      if (response.ok) return window.location.reload();
      const body = (await response.json().catch(() => ({}))) as { detail?: unknown };
      const text = typeof body.detail === "string" ? body.detail : "This token cannot be used. Check it and try again.";
      setFieldError(token, text);
      message.replaceChildren(notice("error", text));
      token.control.focus();
    });
  });
  frame(root, h("h1", {}, "Sign in to the dashboard"), message, form);
}

export function chooseOrganizationView(root: HTMLElement, data: Extract<DashboardPageData, { view: "choose-organization" }>): void {
  configureApi({ csrfToken: data.csrfToken, organizationId: "" });
  const message = h("div", { class: "messages", "aria-live": "polite" });
  const choices = data.organizations.map((organization) => {
    const choose = button(organization.name);
    choose.addEventListener("click", () => {
      void sessionPost("session/organization", { organization_id: organization.id }).then((response) => {
        if (response.ok) window.location.assign("/dashboard/");
        else message.replaceChildren(notice("error", "This organization cannot be opened with this token."));
      });
    });
    return h("li", {}, choose);
  });
  const signOut = button("Use another token", { class: "button button-quiet" });
  signOut.addEventListener("click", () => void sessionPost("session/sign-out").then(() => window.location.assign("/dashboard/")));
  frame(
    root,
    h("h1", {}, "Choose an organization"),
    message,
    data.organizations.length
      ? h("ul", { class: "choices" }, ...choices)
      : notice("error", "This token sees no organization. It needs the organizations:read scope, or another token."),
    h("p", {}, signOut),
  );
}
