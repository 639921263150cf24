import { escapeHtml as e } from "../../pages/html-page.ts";
import { CODE_FORM_PATH } from "../customer-portal/customer-portal.steps.ts";
import { alertBox, header, page, type PortalShell } from "./portal-page.render.ts";
import { portalPath, type PortalOrganization } from "./portal-page.session.ts";

// The sign-in steps of the portal page: the email form, the choice of account, the code form.

const CODE_MINUTES = 15;

/** The email step, the code step, or the choice between the customers an email belongs to. */
export type SignInStep =
  | { step: "email"; email: string }
  | { step: "choose"; email: string; customers: readonly { id: string; name: string | null }[] }
  | { step: "code"; email: string | null };

export interface SignInView {
  code: number;
  problem?: string | null;
}

function signInBody(organization: PortalOrganization, view: SignInStep & SignInView): string {
  const base = portalPath(organization.slug);
  const emailField = (value: string, hidden: boolean) =>
    hidden
      ? `<input type="hidden" name="email" value="${e(value)}">`
      : `<div class="field"><label for="f-email">Email address</label><input id="f-email" name="email" type="email" value="${e(
          value,
        )}" maxlength="320" autocomplete="email" required></div>`;
  let content: string;
  if (view.step === "code") {
    const sent = view.email
      ? `If ${view.email} has purchases at ${organization.name}, a code is on its way.`
      : `Enter the code of the email ${organization.name} sent you.`;
    content = `<h2>Enter your sign-in code</h2><p>${e(sent)} It expires in ${CODE_MINUTES} minutes.</p>${alertBox(view.problem ?? null)}<form method="post" action="${e(
      `${base}${CODE_FORM_PATH}`,
    )}" class="stack"><div class="field"><label for="f-code">Sign-in code</label><input id="f-code" name="code" maxlength="6" autocomplete="one-time-code" autocapitalize="characters" spellcheck="false" required></div><button type="submit" class="button primary">Sign in</button></form><p><a href="${e(
      base,
    )}">Email me a new code</a></p>`;
  } else if (view.step === "choose") {
    const choices = view.customers
      .map(
        (customer, index) =>
          `<div class="field"><input type="radio" id="f-customer-${index}" name="customer_id" value="${e(customer.id)}"${index === 0 ? " checked" : ""}><label for="f-customer-${index}">${e(
            customer.name ?? `Account ${index + 1}`,
          )}</label></div>`,
      )
      .join("");
    content = `<h2>Choose an account</h2><p>${e(`Several accounts at ${organization.name} use this email.`)}</p><form method="post" action="${e(
      `${base}/sign-in`,
    )}" class="stack"><fieldset><legend>Account</legend>${choices}</fieldset>${emailField(view.email, true)}<button type="submit" class="button primary">Email me a sign-in code</button></form>`;
  } else {
    content = `<h2>Sign in</h2><p>${e(
      `Enter the email address you used with ${organization.name}. We will email you a code to sign in.`,
    )}</p>${alertBox(view.problem ?? null)}<form method="post" action="${e(`${base}/sign-in`)}" class="stack" novalidate>${emailField(
      view.email,
      false,
    )}<button type="submit" class="button primary">Email me a sign-in code</button></form><p><a href="${e(
      `${base}${CODE_FORM_PATH}`,
    )}">I already have a code</a></p>`;
  }
  return `<main class="portal status">${header(organization, "Customer portal")}${content}</main>`;
}

/** A sign-in step, as a whole page. */
export const signInPageHtml = (shell: PortalShell, view: SignInStep & SignInView): string =>
  page(shell, "Sign in", { view: "status", pollMs: null }, signInBody(shell.organization, view));
