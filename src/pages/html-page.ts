import type { FastifyReply } from "fastify";
import type { PageAssets } from "./web-assets.ts";

export type { PageAssets };

// The shell every server-rendered page shares (the hosted checkout, the customer portal): escaping,
// the document around a page's body, and the headers that keep it to this origin's own files.

const HTML_ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

/** Text and attribute values: every character HTML gives a meaning to is escaped. */
export const escapeHtml = (value: string): string => value.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c] ?? c);

/**
 * JSON inside `<script type="application/json">`: a raw-text element ends at `</script`, and `<!--`
 * changes how it is parsed, so every `<` is written as its JSON escape.
 */
const scriptJson = (data: unknown): string => JSON.stringify(data).replace(/</g, "\\u003c");

/** A JSON data block a page's script reads by its id (never run: no CSP source is needed for it). */
export const jsonBlock = (id: string, data: unknown): string => `<script type="application/json" id="${id}">${scriptJson(data)}</script>`;

export type Theme = "light" | "dark" | null;

/** `?theme=light|dark` picks a theme; anything else leaves it to the system's preference. */
export const themeOf = (query: unknown): Theme => {
  const theme = typeof query === "object" && query !== null ? (query as { theme?: unknown }).theme : null;
  return theme === "light" || theme === "dark" ? theme : null;
};

export interface HtmlDocument {
  title: string;
  theme: Theme;
  assets: PageAssets;
  /** What the page's script reads, as JSON in `#page-data`. */
  data: unknown;
  body: string;
}

export function htmlDocument({ title, theme, assets, data, body }: HtmlDocument): string {
  const themeAttribute = theme ? ` data-theme="${theme}"` : "";
  return `<!doctype html>
<html lang="en"${themeAttribute}>
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<link rel="icon" href="data:,">
<title>${escapeHtml(title)}</title>
<style>${assets.style}</style>
</head>
<body>
${body}
${jsonBlock("page-data", data)}
<script>${assets.script}</script>
</body>
</html>
`;
}

/**
 * Outside origins a page's own script needs (a payment processor's script, its API, the frames of
 * its card fields and 3-D Secure challenge); none by default.
 */
export interface PageSources {
  readonly script: readonly string[];
  readonly connect: readonly string[];
  readonly frame: readonly string[];
}

export const NO_PAGE_SOURCES: PageSources = { script: [], connect: [], frame: [] };

export interface PageHeaders {
  /** The one origin that may frame the page; none by default. */
  frameAncestor?: string | null;
  sources?: PageSources;
  /**
   * `no-referrer` by default: the checkout's address carries its client secret. A page whose address
   * holds no secret and posts forms to itself says `same-origin`, so the browser names the form's
   * origin (with `no-referrer` it sends `Origin: null`).
   */
  referrerPolicy?: "no-referrer" | "same-origin";
  /** Outside origins the page shows images from (a product's media, and the store its URL redirects to). */
  imageSources?: readonly string[];
}

/** A CSP directive: this page's own sources, then the outside origins it was given. */
const directive = (name: string, own: string, outside: readonly string[]) => [name, own, ...outside].join(" ");

/**
 * Sends a page with its headers: nothing runs or styles it but its own inline script and
 * stylesheet (allowed by hash) and the outside sources it names, framed only by the allowed
 * origin, never cached.
 */
export function sendHtml(reply: FastifyReply, status: number, html: string, assets: PageAssets, options: PageHeaders = {}): FastifyReply {
  const frameAncestor = options.frameAncestor ?? null;
  const sources = options.sources ?? NO_PAGE_SOURCES;
  return reply
    .code(status)
    .headers({
      "content-type": "text/html; charset=utf-8",
      "content-security-policy": [
        "default-src 'none'",
        directive("script-src", assets.scriptHash, sources.script),
        `style-src ${assets.styleHash}`,
        directive("img-src", "'self' data:", options.imageSources ?? []),
        directive("connect-src", "'self'", sources.connect),
        // Without a frame-src, default-src 'none' refuses every frame.
        ...(sources.frame.length > 0 ? [`frame-src ${sources.frame.join(" ")}`] : []),
        "form-action 'self'",
        "base-uri 'none'",
        `frame-ancestors ${frameAncestor ?? "'none'"}`,
      ].join("; "),
      ...(frameAncestor ? {} : { "x-frame-options": "DENY" }),
      "x-content-type-options": "nosniff",
      "referrer-policy": options.referrerPolicy ?? "no-referrer",
      "cache-control": "no-store",
      "permissions-policy": "camera=(), microphone=(), geolocation=()",
    })
    .send(html);
}
