import type { CheckoutPageData } from "./checkout-page.data.ts";

const HTML_ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

/** Text and attribute values: every character HTML gives a meaning to is escaped. */
export const escapeHtml = (value: string): string => value.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c] ?? c);

/**
 * JSON inside `<script type="application/json">`: a raw-text element ends at `</script`, and `<!--`
 * changes how it is parsed, so every `<` is written as its JSON escape.
 */
const scriptJson = (data: CheckoutPageData): string => JSON.stringify(data).replace(/</g, "\\u003c");

export type Theme = "light" | "dark" | null;

export interface PageAssets {
  scriptPath: string;
  stylePath: string;
}

interface Document {
  title: string;
  theme: Theme;
  assets: PageAssets;
  data: CheckoutPageData;
  body: string;
}

function page({ title, theme, assets, data, body }: Document): string {
  const themeAttribute = theme ? ` data-theme="${theme}"` : "";
  return `<!doctype html>
<html lang="en"${themeAttribute}>
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<link rel="icon" href="data:,">
<title>${escapeHtml(title)}</title>
<link rel="stylesheet" href="${assets.stylePath}">
<script src="${assets.scriptPath}" defer></script>
</head>
<body>
${body}
<script type="application/json" id="page-data">${scriptJson(data)}</script>
</body>
</html>
`;
}

/** The checkout form: the script draws it from the session in the page data. */
export function checkoutFormPage(input: {
  organizationName: string;
  theme: Theme;
  assets: PageAssets;
  data: CheckoutPageData & { view: "form" };
}): string {
  const name = escapeHtml(input.organizationName);
  return page({
    title: `Checkout · ${input.organizationName}`,
    theme: input.theme,
    assets: input.assets,
    data: input.data,
    body: `<main id="checkout" class="checkout" aria-busy="true">
<header class="merchant"><span class="merchant-mark" aria-hidden="true">${escapeHtml(input.organizationName.slice(0, 1).toUpperCase())}</span><h1>${name}</h1></header>
<noscript><p class="notice">This checkout needs JavaScript to take your payment. Please enable it and reload the page.</p></noscript>
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
  return page({
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
