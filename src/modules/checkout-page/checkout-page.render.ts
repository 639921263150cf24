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
