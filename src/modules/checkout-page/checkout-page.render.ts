import { countryChoices } from "../../schema/country-names.ts";
import { escapeHtml, htmlDocument, jsonBlock, type PageAssets, type Theme } from "../../pages/html-page.ts";
import { COUNTRIES_BLOCK_ID, type CheckoutPageData } from "./checkout-page.data.ts";

let countriesBlock: string | null = null;
/** The countries, serialized once per process: the same on every form. */
const countries = (): string => (countriesBlock ??= jsonBlock(COUNTRIES_BLOCK_ID, countryChoices()));

/** The checkout form: the script draws it from the session in the page data. */
export function checkoutFormPage(input: {
  organizationName: string;
  theme: Theme;
  assets: PageAssets;
  data: CheckoutPageData & { view: "form" };
}): string {
  const name = escapeHtml(input.organizationName);
  return htmlDocument({
    title: `Checkout · ${input.organizationName}`,
    theme: input.theme,
    assets: input.assets,
    data: input.data,
    body: `<main id="checkout" class="checkout" aria-busy="true">
<header class="merchant"><span class="merchant-mark" aria-hidden="true">${escapeHtml(input.organizationName.slice(0, 1).toUpperCase())}</span><h1>${name}</h1></header>
<noscript><p class="notice">This checkout needs JavaScript to take your payment. Please enable it and reload the page.</p></noscript>
</main>
${countries()}`,
  });
}

/** What the page after a payment shows of it, formatted: the same as the order's email. */
export interface PurchaseView {
  description: string;
  receiptNumber: string | null;
  /** Each line and the totals, label and formatted amount; the last is the total. */
  lines: readonly (readonly [string, string])[];
  benefits: readonly {
    description: string;
    licenseKey: string | null;
    terms: readonly string[];
    /** Each file's name, readable size and download link. */
    files: readonly { name: string; size: string; url: string }[];
  }[];
  documents: { receiptUrl: string | null; invoiceUrl: string | null };
}

const e = escapeHtml;

function purchaseDetails(purchase: PurchaseView): string {
  const rows = purchase.lines
    .map(
      ([label, amount], index) =>
        `<tr${index === purchase.lines.length - 1 ? ' class="total"' : ""}><td>${e(label)}</td><td>${e(amount)}</td></tr>`,
    )
    .join("");
  const documents = [
    ...(purchase.documents.receiptUrl ? [`<a href="${e(purchase.documents.receiptUrl)}">Download your receipt (PDF)</a>`] : []),
    ...(purchase.documents.invoiceUrl ? [`<a href="${e(purchase.documents.invoiceUrl)}">Download your invoice (PDF)</a>`] : []),
  ];
  const benefits = purchase.benefits
    .map(
      (benefit) =>
        `<li><p class="benefit">${e(benefit.description)}</p>${benefit.licenseKey ? `<p class="hint">License key</p><code class="license-key">${e(benefit.licenseKey)}</code>` : ""}${benefit.terms.map((term) => `<p class="hint">${e(term)}</p>`).join("")}${benefit.files
          .map((file) => `<p class="file"><a href="${e(file.url)}">${e(file.name)}</a> <span class="hint">(${e(file.size)})</span></p>`)
          .join("")}</li>`,
    )
    .join("");
  return `<section class="purchase" aria-label="Your order">
<h2>${e(purchase.description)}</h2>
${purchase.receiptNumber ? `<p class="hint">Receipt number: ${e(purchase.receiptNumber)}</p>` : ""}
<table class="purchase-lines">${rows}</table>
${documents.length ? `<p class="documents">${documents.join("<br>")}</p>` : ""}
${benefits ? `<h2>What you get</h2><ul class="benefits">${benefits}</ul>` : ""}
</section>`;
}

/**
 * The page after a payment (the default success URL): what the confirmation email shows, the
 * order, its documents and the license keys, and how to reach the portal later. Without the order
 * (not written yet), the thanks alone.
 */
export function purchaseCompletePage(input: {
  seller: string;
  email: string | null;
  purchase: PurchaseView | null;
  portalUrl: string;
  link: { href: string; label: string } | null;
  theme: Theme;
  assets: PageAssets;
  embedOrigin: string | null;
}): string {
  const emailed = input.email ? ` A confirmation is on its way to ${input.email}.` : "";
  const link = input.link ? `<p><a class="button secondary" href="${e(input.link.href)}">${e(input.link.label)}</a></p>` : "";
  const close = input.embedOrigin ? `<p><button type="button" class="button secondary" data-action="close">Close</button></p>` : "";
  return htmlDocument({
    title: "Thank you!",
    theme: input.theme,
    assets: input.assets,
    data: { view: "status", embedOrigin: input.embedOrigin },
    body: `<main class="checkout status">
<h1>Thank you!</h1>
<p>${e(`Your purchase from ${input.seller} is complete.${emailed}`)}</p>
${input.purchase ? purchaseDetails(input.purchase) : ""}
<h2>Your purchases, any time</h2>
<p>${e(`Sign in to ${input.seller}'s customer portal with your email to see your orders, receipts and license keys.`)}</p>
<p><a class="button" href="${e(input.portalUrl)}">Open the customer portal</a></p>
${link}${close}
</main>`,
  });
}

/** A session the buyer cannot act on (unknown, expired, paid, failed): a heading, a sentence, a way out. */
export function statusPage(input: {
  heading: string;
  message: string;
  link: { href: string; label: string } | null;
  theme: Theme;
  assets: PageAssets;
  embedOrigin: string | null;
}): string {
  const link = input.link ? `<p><a class="button" href="${escapeHtml(input.link.href)}">${escapeHtml(input.link.label)}</a></p>` : "";
  const close = input.embedOrigin ? `<p><button type="button" class="button secondary" data-action="close">Close</button></p>` : "";
  return htmlDocument({
    title: input.heading,
    theme: input.theme,
    assets: input.assets,
    data: { view: "status", embedOrigin: input.embedOrigin },
    body: `<main class="checkout status">
<h1>${escapeHtml(input.heading)}</h1>
<p>${escapeHtml(input.message)}</p>
${link}${close}
</main>`,
  });
}
