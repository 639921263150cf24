import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import type { FastifyReply } from "fastify";
import { UUID4_PATTERN } from "../../http/validation.ts";
import { escapeHtml } from "../../pages/html-page.ts";
import { documentLinkValid, type LinkedDocument } from "./order-document-links.ts";
import type { OrderDocumentService } from "./order-documents.service.ts";

const LINKED: readonly string[] = ["receipt", "invoice"] satisfies LinkedDocument[];

/** How long a browser waits before asking again for a document still being rendered. */
const PREPARING_RETRY_SECONDS = 3;

/** A short page with no script, style or outside resource: what became of the link. */
function notice(reply: FastifyReply, status: number, heading: string, message: string, headers: Record<string, string> = {}): FastifyReply {
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="robots" content="noindex"><title>${escapeHtml(heading)}</title></head>
<body><h1>${escapeHtml(heading)}</h1><p>${escapeHtml(message)}</p></body></html>
`;
  return reply
    .code(status)
    .headers({
      "content-type": "text/html; charset=utf-8",
      "content-security-policy": "default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
      "x-content-type-options": "nosniff",
      // The address carries the link's signature.
      "referrer-policy": "no-referrer",
      "cache-control": "no-store",
      ...headers,
    })
    .send(html);
}

const queryValue = (query: unknown, name: string): string | null => {
  const value = typeof query === "object" && query !== null ? (query as Record<string, unknown>)[name] : undefined;
  return typeof value === "string" ? value : null;
};

/**
 * The receipt and invoice links emails carry (`order-document-links.ts`): a valid link redirects to
 * the document's download (rendering it first if needed: a page that reloads itself meanwhile); a
 * link altered, expired, or naming no document answers the same 404, telling nothing about the order.
 */
export const orderDocumentLinkRoutes =
  (documents: OrderDocumentService, options: { secret: string; now: () => Date }): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.get<{ Params: { id: string; document: string } }>(
      "/documents/orders/:id/:document",
      { schema: { hide: true } },
      async (request, reply) => {
        const { id, document } = request.params;
        const expires = queryValue(request.query, "expires");
        const signature = queryValue(request.query, "signature");
        const gone = () =>
          notice(
            reply,
            404,
            "Link not valid",
            "This link is not valid or has expired. Your receipts and invoices are in the seller's customer portal.",
          );
        if (!UUID4_PATTERN.test(id) || !LINKED.includes(document) || expires === null || signature === null) return gone();
        const linked = document as LinkedDocument;
        if (!documentLinkValid(options.secret, { orderId: id, document: linked, expires, signature }, options.now())) return gone();
        const found = await documents.linkedDocument(id, linked);
        if (found === null) return gone();
        if (found === "preparing")
          return notice(reply, 202, `Preparing your ${linked}`, `Your ${linked} is being prepared. This page reloads in a few seconds.`, {
            "retry-after": String(PREPARING_RETRY_SECONDS),
            refresh: String(PREPARING_RETRY_SECONDS),
          });
        return reply.redirect(found.url, 303);
      },
    );
  };
