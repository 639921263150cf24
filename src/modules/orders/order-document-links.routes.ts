import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import type { FastifyReply, FastifyRequest } from "fastify";
import { UUID4_PATTERN } from "../../http/validation.ts";
import { escapeHtml } from "../../pages/html-page.ts";
import { documentLinkValid, type LinkedDocument } from "./order-document-links.ts";
import type { OrderDocumentService } from "./order-documents.service.ts";

/** The documents an order's link may name (a credit note has its own path). */
const ORDER_DOCUMENTS: readonly string[] = ["receipt", "invoice"] satisfies LinkedDocument[];

/** What the pages call each document. */
const DOCUMENT_WORDS: Record<LinkedDocument, string> = { receipt: "receipt", invoice: "invoice", credit_note: "credit note" };

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
 * The document links emails carry (`order-document-links.ts`): an order's receipt and invoice, a
 * refund's credit note. A valid link redirects to the document's download (rendering it first if
 * needed: a page that reloads itself meanwhile); a link altered, expired, or naming no document
 * answers the same 404, telling nothing about the order.
 */
export const orderDocumentLinkRoutes =
  (documents: OrderDocumentService, options: { secret: string; now: () => Date }): FastifyPluginAsyncTypebox =>
  async (app) => {
    async function follow(request: FastifyRequest, reply: FastifyReply, id: string, document: LinkedDocument | null) {
      const expires = queryValue(request.query, "expires");
      const signature = queryValue(request.query, "signature");
      const gone = () =>
        notice(
          reply,
          404,
          "Link not valid",
          "This link is not valid or has expired. Your receipts, invoices and credit notes are in the seller's customer portal.",
        );
      if (!UUID4_PATTERN.test(id) || document === null || expires === null || signature === null) return gone();
      if (!documentLinkValid(options.secret, { id, document, expires, signature }, options.now())) return gone();
      const found = await documents.linkedDocument(id, document);
      if (found === null) return gone();
      const words = DOCUMENT_WORDS[document];
      if (found === "preparing")
        return notice(reply, 202, `Preparing your ${words}`, `Your ${words} is being prepared. This page reloads in a few seconds.`, {
          "retry-after": String(PREPARING_RETRY_SECONDS),
          refresh: String(PREPARING_RETRY_SECONDS),
        });
      return reply.redirect(found.url, 303);
    }

    app.get<{ Params: { id: string; document: string } }>("/documents/orders/:id/:document", { schema: { hide: true } }, (request, reply) =>
      follow(
        request,
        reply,
        request.params.id,
        ORDER_DOCUMENTS.includes(request.params.document) ? (request.params.document as LinkedDocument) : null,
      ),
    );
    app.get<{ Params: { id: string } }>("/documents/credit-notes/:id", { schema: { hide: true } }, (request, reply) =>
      follow(request, reply, request.params.id, "credit_note"),
    );
  };
