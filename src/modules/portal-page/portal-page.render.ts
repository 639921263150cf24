import { countryChoices } from "../../schema/country-names.ts";
import { escapeHtml as e, htmlDocument, type PageAssets, type Theme } from "../../pages/html-page.ts";
import type { PaymentFormKind } from "../checkout-page/checkout-page.steps.ts";
import type { CustomerPortalCustomer } from "../customer-portal/portal-customers.schemas.ts";
import type { CustomerOrder } from "../customer-portal/portal-orders.schemas.ts";
import type { CustomerSubscription } from "../customer-portal/portal-subscriptions.schemas.ts";
import type { LicenseKeyWithActivations } from "../license-keys/license-keys.schemas.ts";
import type { DownloadableRead } from "../files/files.schemas.ts";
import type { CustomerPaymentMethod } from "../payments/payment-methods.schemas.ts";
import { downloadItem } from "./portal-page-downloads.render.ts";
import type { BillingForm, FieldErrors } from "./portal-page.forms.ts";
import { portalPath, type PortalOrganization } from "./portal-page.session.ts";

/** What the portal's script reads from the page. */
/** A card the processor asks the customer to confirm with their bank (3-D Secure) before it is saved: what the page's script finishes. */
export interface CardAuthentication {
  clientSecret: string;
  setupIntentId: string;
}

export type PortalPageData =
  | { view: "overview"; paymentForm: PaymentFormKind; cardAuthentication: CardAuthentication | null }
  | { view: "status"; pollMs: number | null };

export interface PortalShell {
  organization: PortalOrganization;
  theme: Theme;
  assets: PageAssets;
}

const formats = new Map<string, Intl.NumberFormat>();
export const money = (cents: number, currency: string): string => {
  let format = formats.get(currency);
  if (!format) {
    format = new Intl.NumberFormat("en", { style: "currency", currency: currency.toUpperCase() });
    formats.set(currency, format);
  }
  return format.format(cents / 100);
};
export const day = (iso: string): string => new Date(iso).toLocaleDateString("en", { dateStyle: "medium", timeZone: "UTC" });

/** A POST form of one button: every action of the portal is one. */
const actionButton = (action: string, label: string, style: "primary" | "secondary", describedBy?: string): string =>
  `<form method="post" action="${e(action)}" class="inline"><button type="submit" class="button ${style}"${
    describedBy ? ` aria-describedby="${e(describedBy)}"` : ""
  }>${e(label)}</button></form>`;

export function header(organization: PortalOrganization | null, subtitle: string): string {
  const name = organization?.name ?? "Customer portal";
  return `<header class="merchant"><span class="merchant-mark" aria-hidden="true">${e(name.slice(0, 1).toUpperCase())}</span><div><h1>${e(
    name,
  )}</h1><p class="muted">${e(subtitle)}</p></div></header>`;
}

/** The shell of a page that may not know its organization (an unknown address). */
type AnyShell = Omit<PortalShell, "organization"> & { organization: PortalOrganization | null };

export function page(shell: AnyShell, title: string, data: PortalPageData, body: string): string {
  const seller = shell.organization ? ` · ${shell.organization.name}` : "";
  return htmlDocument({ title: `${title}${seller}`, theme: shell.theme, assets: shell.assets, data, body });
}

/** A field of a server-rendered form: label, control, and its error tied to it. */
function textField(
  name: keyof BillingForm,
  label: string,
  value: string,
  errors: FieldErrors,
  options: { autocomplete?: string; required?: boolean } = {},
) {
  const id = `f-${name}`;
  const error = errors[name];
  const optional = options.required ? "" : ' <span class="optional">(optional)</span>';
  return `<div class="field"><label for="${id}">${e(label)}${optional}</label><input id="${id}" name="${e(name)}" value="${e(value)}" maxlength="256"${
    options.autocomplete ? ` autocomplete="${options.autocomplete}"` : ""
  }${options.required ? " required" : ""}${error ? ` aria-invalid="true" aria-describedby="${id}-error"` : ""}>${
    error ? `<p class="field-error" id="${id}-error">${e(error)}</p>` : ""
  }</div>`;
}

/** Billing name and address, as the invoice and the customer record carry them. */
export function billingFields(values: BillingForm, errors: FieldErrors, required: boolean): string {
  const countryError = errors.country;
  const options = countryChoices()
    .map(({ code, label }) => `<option value="${code}"${code === values.country ? " selected" : ""}>${e(label)}</option>`)
    .join("");
  return [
    textField("billing_name", "Billing name", values.billing_name, errors, { autocomplete: "name", required }),
    `<div class="field"><label for="f-country">Country${required ? "" : ' <span class="optional">(optional)</span>'}</label><select id="f-country" name="country" autocomplete="country"${
      required ? " required" : ""
    }${countryError ? ' aria-invalid="true" aria-describedby="f-country-error"' : ""}><option value="">Select a country</option>${options}</select>${
      countryError ? `<p class="field-error" id="f-country-error">${e(countryError)}</p>` : ""
    }</div>`,
    textField("line1", "Address", values.line1, errors, { autocomplete: "address-line1" }),
    textField("line2", "Address line 2", values.line2, errors, { autocomplete: "address-line2" }),
    `<div class="row">${textField("postal_code", "Postal code", values.postal_code, errors, { autocomplete: "postal-code" })}${textField(
      "city",
      "City",
      values.city,
      errors,
      { autocomplete: "address-level2" },
    )}</div>`,
    textField("state", "State / Province", values.state, errors, { autocomplete: "address-level1" }),
  ].join("\n");
}

export const alertBox = (message: string | null): string => (message ? `<div class="alert" role="alert"><p>${e(message)}</p></div>` : "");
const noticeBox = (message: string | null): string =>
  `<div class="notice" role="status"${message ? "" : " hidden"}>${message ? `<p>${e(message)}</p>` : ""}</div>`;

function subscriptionItem(base: string, subscription: CustomerSubscription): string {
  const every =
    subscription.recurring_interval_count === 1
      ? subscription.recurring_interval
      : `${subscription.recurring_interval_count} ${subscription.recurring_interval}s`;
  const id = `sub-${subscription.id}`;
  const active = subscription.status === "active" || subscription.status === "trialing";
  let state: string;
  let action = "";
  if (!active) state = subscription.ended_at ? `Ended on ${day(subscription.ended_at)}` : `Status: ${subscription.status}`;
  else if (subscription.cancel_at_period_end) {
    state = `Cancelled — access ends on ${day(subscription.current_period_end ?? subscription.ends_at ?? subscription.started_at ?? "")}`;
    action = actionButton(`${base}/subscriptions/${subscription.id}/uncancel`, "Resume subscription", "primary", id);
  } else {
    state = subscription.current_period_end ? `Renews on ${day(subscription.current_period_end)}` : "Active";
    action = actionButton(`${base}/subscriptions/${subscription.id}/cancel`, "Cancel subscription", "secondary", id);
  }
  return `<li class="item"><h3 id="${id}">${e(subscription.product.name)}</h3><p>${e(money(subscription.amount, subscription.currency))} / ${e(
    every,
  )}</p><p class="muted">${e(state)}</p>${action}</li>`;
}

function orderItem(base: string, order: CustomerOrder): string {
  const id = `order-${order.id}`;
  const links: string[] = [];
  if (order.receipt_number) links.push(`<a href="${e(`${base}/orders/${order.id}/receipt`)}" aria-describedby="${id}">Receipt</a>`);
  if (order.is_invoice_generated && order.refunded_amount > 0)
    links.push(`<a href="${e(`${base}/orders/${order.id}/credit-notes`)}" aria-describedby="${id}">Credit notes</a>`);
  if (order.status !== "draft" && order.status !== "void")
    links.push(
      `<a href="${e(`${base}/orders/${order.id}/invoice`)}" aria-describedby="${id}">${order.is_invoice_generated ? "Invoice" : "Generate invoice"}</a>`,
    );
  const status = order.status.replace(/_/g, " ");
  return `<li class="item"><h3 id="${id}">${e(order.product?.name ?? order.description)}</h3><dl class="facts"><div><dt>Date</dt><dd>${e(
    day(order.created_at),
  )}</dd></div><div><dt>Amount</dt><dd>${e(money(order.total_amount, order.currency))}</dd></div><div><dt>Status</dt><dd>${e(
    status,
  )}</dd></div></dl>${links.length ? `<p class="links">${links.join(" ")}</p>` : ""}</li>`;
}

function licenseKeyItem(base: string, key: LicenseKeyWithActivations): string {
  const id = `key-${key.id}`;
  const limit = key.limit_activations === null ? "" : ` of ${key.limit_activations}`;
  const activations = key.activations.length
    ? `<ul class="activations">${key.activations
        .map(
          (activation) =>
            `<li><span id="act-${activation.id}">${e(activation.label)}</span> <span class="muted">since ${e(day(activation.created_at))}</span>${actionButton(
              `${base}/license-keys/${key.id}/activations/${activation.id}/deactivate`,
              "Deactivate",
              "secondary",
              `act-${activation.id}`,
            )}</li>`,
        )
        .join("")}</ul>`
    : '<p class="muted">No activations.</p>';
  return `<li class="item"><h3 id="${id}"><code>${e(key.key)}</code></h3><p class="muted">Status: ${e(key.status)} · ${key.activations.length}${limit} activations</p>${activations}</li>`;
}

function paymentMethodItem(method: CustomerPaymentMethod): string {
  const label =
    "method_metadata" in method && method.type === "card"
      ? `${method.method_metadata.brand} ending in ${method.method_metadata.last4}`
      : method.type;
  return `<li>${e(label)}</li>`;
}

export interface OverviewInput {
  returnUrl: string | null;
  customer: CustomerPortalCustomer;
  orders: CustomerOrder[];
  ordersPage: { page: number; maxPage: number };
  subscriptions: CustomerSubscription[];
  licenseKeys: LicenseKeyWithActivations[];
  downloads: DownloadableRead[];
  paymentMethods: CustomerPaymentMethod[];
  paymentForm: PaymentFormKind;
  cardAuthentication: CardAuthentication | null;
  notice: string | null;
  problem: string | null;
  billing: { values: BillingForm; errors: FieldErrors };
}

const section = (id: string, title: string, content: string): string =>
  `<section id="${id}" class="panel" aria-labelledby="${id}-title"><h2 id="${id}-title">${e(title)}</h2>${content}</section>`;

export const list = (items: string[], empty: string): string =>
  items.length ? `<ul class="items">${items.join("")}</ul>` : `<p class="muted">${e(empty)}</p>`;

/** Links to the newer and older pages of orders, where there are any. */
function ordersPager(base: string, { page, maxPage }: OverviewInput["ordersPage"]): string {
  const link = (to: number, label: string, rel: string) =>
    `<a href="${e(`${base}?orders_page=${to}#orders`)}" rel="${rel}">${e(label)}</a>`;
  const links = [
    page > 1 ? link(Math.min(page - 1, Math.max(maxPage, 1)), "Newer orders", "prev") : "",
    page < maxPage ? link(page + 1, "Older orders", "next") : "",
  ].filter(Boolean);
  return links.length
    ? `<nav class="pager" aria-label="Pages of orders"><p class="muted">Page ${page} of ${Math.max(maxPage, page)}</p>${links.join(" ")}</nav>`
    : "";
}

/**
 * The step after a card that needs 3-D Secure: the page's script opens the bank's check at once and
 * posts this form when it is done; the button does it again if the customer closed the check.
 */
function cardAuthenticationForm(base: string, authentication: CardAuthentication | null): string {
  if (!authentication) return "";
  return `<form method="post" action="${e(`${base}/payment-method/confirm`)}" id="card-authentication-form" class="stack"><p class="notice" role="status">Your bank asks you to confirm this card before it is saved.</p><input type="hidden" name="setup_intent_id" value="${e(
    authentication.setupIntentId,
  )}"><noscript><p class="notice">Confirming the card needs JavaScript.</p></noscript><button type="submit" class="button primary">Confirm the card with your bank</button></form>`;
}

/** The portal: subscriptions, orders and their documents, license keys, downloads, billing details, payment method. */
export function overviewPage(shell: PortalShell, input: OverviewInput): string {
  const base = portalPath(shell.organization.slug);
  const body = `<main class="portal" aria-busy="true">
${header(shell.organization, `Signed in as ${input.customer.email ?? input.customer.name ?? "customer"}`)}
${input.returnUrl ? `<p class="top"><a href="${e(input.returnUrl)}">Back to ${e(shell.organization.name)}</a></p>` : ""}
<nav class="sections" aria-label="Sections"><a href="#subscriptions">Subscriptions</a><a href="#orders">Orders</a><a href="#license-keys">License keys</a><a href="#downloads">Downloads</a><a href="#billing">Billing details</a><a href="#payment-method">Payment method</a></nav>
${alertBox(input.problem)}${noticeBox(input.notice)}
${section(
  "subscriptions",
  "Subscriptions",
  list(
    input.subscriptions.map((s) => subscriptionItem(base, s)),
    "You have no subscriptions.",
  ),
)}
${section(
  "orders",
  "Orders",
  list(
    input.orders.map((o) => orderItem(base, o)),
    input.ordersPage.page > 1 ? "There are no orders on this page." : "You have no orders yet.",
  ) + ordersPager(base, input.ordersPage),
)}
${section(
  "license-keys",
  "License keys",
  list(
    input.licenseKeys.map((k) => licenseKeyItem(base, k)),
    "You have no license keys.",
  ),
)}
${section("downloads", "Downloads", list(input.downloads.map(downloadItem), "You have no files to download."))}
${section(
  "billing",
  "Billing details",
  `<form method="post" action="${e(`${base}/billing`)}" class="stack" novalidate>${billingFields(
    input.billing.values,
    input.billing.errors,
    false,
  )}${textField("tax_id", "Tax ID", input.billing.values.tax_id, input.billing.errors)}<button type="submit" class="button primary">Save billing details</button></form>`,
)}
${section(
  "payment-method",
  "Payment method",
  `${list(input.paymentMethods.map(paymentMethodItem), "No payment method on file.")}<form method="post" action="${e(
    `${base}/payment-method`,
  )}" id="payment-method-form" class="stack" novalidate><fieldset class="payment"><legend>Replace the payment method</legend><div id="payment-form-slot"></div><noscript><p class="notice">Replacing the payment method needs JavaScript.</p></noscript></fieldset><input type="hidden" name="confirmation_token_id" value=""><button type="submit" class="button primary">Save payment method</button></form>${cardAuthenticationForm(
    base,
    input.cardAuthentication,
  )}`,
)}
</main>`;
  return page(
    shell,
    "Customer portal",
    { view: "overview", paymentForm: input.paymentForm, cardAuthentication: input.cardAuthentication },
    body,
  );
}

/** A page with a heading, a sentence and a way out (sign-in problems, documents being prepared). */
export function portalStatusPage(
  shell: AnyShell,
  input: { heading: string; message: string; link: { href: string; label: string } | null; pollMs?: number },
): string {
  const link = input.link ? `<p><a class="button secondary" href="${e(input.link.href)}">${e(input.link.label)}</a></p>` : "";
  return page(
    shell,
    input.heading,
    { view: "status", pollMs: input.pollMs ?? null },
    `<main class="portal status">${header(shell.organization, "Customer portal")}<h2>${e(input.heading)}</h2><p>${e(input.message)}</p>${link}</main>`,
  );
}
