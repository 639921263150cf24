import type { DocumentLanguage } from "../../documents/language.ts";
import { escapeHtml } from "../../pages/html-page.ts";

/** An email as written to the outbox: its subject and its two parts. */
export interface RenderedEmail {
  subject: string;
  html: string;
  text: string;
}

/** Who the email speaks for: the seller's name, and its logo when it is an http(s) address (the one remote image). */
export interface EmailBrand {
  name: string;
  logoUrl: string | null;
}

/** One block of an email, in both forms; the HTML is built from escaped values only. */
export interface EmailSection {
  html: string;
  text: string;
}

/** A heading and the lines under it, the opening of most emails. */
export function intro(title: string, ...lines: readonly string[]): EmailSection {
  return {
    html: `<h1 style="font-size:20px;margin:0 0 8px">${escapeHtml(title)}</h1>\n${lines.map((line) => `<p style="margin:0 0 16px">${escapeHtml(line)}</p>`).join("\n")}`,
    text: [title, ...lines].join("\n"),
  };
}

/** Lines of text under a section that has its own heading. */
export function paragraphs(...lines: readonly string[]): EmailSection {
  return {
    html: lines.map((line) => `<p style="margin:0 0 16px">${escapeHtml(line)}</p>`).join("\n"),
    text: lines.join("\n"),
  };
}

/** A link drawn as a button; in the plain part, the label and the address on their own line. */
export function button(label: string, url: string): EmailSection {
  return {
    html: `<p style="margin:0 0 24px"><a href="${escapeHtml(url)}" style="display:inline-block;padding:10px 16px;background:#18181b;color:#ffffff;border-radius:6px;text-decoration:none;font-weight:600">${escapeHtml(label)}</a></p>`,
    text: `${label}:\n${url}`,
  };
}

const logoOf = (brand: EmailBrand): string =>
  brand.logoUrl && /^https?:\/\//i.test(brand.logoUrl)
    ? `<img src="${escapeHtml(brand.logoUrl)}" alt="${escapeHtml(brand.name)}" height="48" style="display:block;max-height:48px;margin:0 0 16px">`
    : "";

/**
 * The frame every email shares: the seller's logo and name, the sections, a footer. Inline styles
 * only (mail clients drop style sheets), no script, no remote resource but the logo.
 */
export function emailLayout(
  brand: EmailBrand,
  language: DocumentLanguage,
  content: { title: string; sections: readonly EmailSection[]; footer: string },
): { html: string; text: string } {
  const html = `<!doctype html>
<html lang="${escapeHtml(language.language)}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>${escapeHtml(content.title)}</title></head>
<body style="margin:0;padding:24px;background:#f4f4f5;font-family:-apple-system,'Segoe UI',Helvetica,Arial,sans-serif;color:#18181b">
<div style="max-width:560px;margin:0 auto;background:#ffffff;border-radius:8px;padding:32px;overflow-wrap:anywhere">
${logoOf(brand)}<p style="margin:0 0 24px;font-weight:600">${escapeHtml(brand.name)}</p>
${content.sections.map((section) => section.html).join("\n")}
<p style="margin:32px 0 0;font-size:12px;color:#71717a">${escapeHtml(content.footer)}</p>
</div></body></html>
`;
  const text = [brand.name, ...content.sections.map((section) => section.text), `--\n${content.footer}`].join("\n\n") + "\n";
  return { html, text };
}
