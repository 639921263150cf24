// The customer portal's script. The pages are complete without it (every action is a form the
// server answers); it adds what needs the browser: the card form of the payment step, and asking
// again for a document that is still being prepared.
import type { PortalPageData } from "../src/modules/portal-page/portal-page.render.ts";
import { paymentFormFor, type PaymentForm } from "./payment-forms.ts";

const data = JSON.parse(document.getElementById("page-data")?.textContent ?? "null") as PortalPageData;

/** The payment step of the checkout page, mounted in the portal's form: the token it makes is what the form posts. */
function paymentMethodForm(): void {
  if (data.view !== "overview") return;
  const form = document.getElementById("payment-method-form");
  const slot = document.getElementById("payment-form-slot");
  const token = form?.querySelector<HTMLInputElement>("input[name=confirmation_token_id]");
  const submit = form?.querySelector<HTMLButtonElement>("button[type=submit]");
  if (!(form instanceof HTMLFormElement) || !slot || !token || !submit) return;
  const payment = paymentFormFor(data.paymentForm);
  payment.mount(slot);
  submit.disabled = !payment.ready;
  if (data.cardAuthentication) finishCardAuthentication(payment, data.cardAuthentication.clientSecret);
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    void payment.tokenize().then((value) => {
      if (value === null) return;
      token.value = value;
      submit.disabled = true;
      // Posts the form as it is, without this handler again.
      form.submit();
    });
  });
}

/**
 * A card the bank must confirm (3-D Secure): its check opens at once; once done, the confirm form is
 * posted (the server reads the setup again at the processor). The form's button opens the check again.
 */
function finishCardAuthentication(payment: PaymentForm, clientSecret: string): void {
  const form = document.getElementById("card-authentication-form");
  if (!(form instanceof HTMLFormElement)) return;
  const authenticate = () =>
    void payment.authenticate?.(clientSecret).then((refusal) => {
      if (refusal === null) form.submit();
      else payment.showRefusal(refusal);
    });
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    authenticate();
  });
  authenticate();
}

function start(): void {
  paymentMethodForm();
  if (data.view === "status" && data.pollMs !== null) {
    const wait = data.pollMs;
    window.setTimeout(() => window.location.reload(), wait);
  }
  for (const main of document.querySelectorAll("main[aria-busy]")) main.setAttribute("aria-busy", "false");
  performance.mark("portal-interactive");
  document.documentElement.dataset.ready = "true";
}

start();
