import { notExpired, signFields, signatureMatches } from "../../values/signatures.ts";

// Links to an order's receipt and invoice, and to a refund's credit note, that an email can carry:
// no session, no token, only a signature over the document, its id and the link's expiry, made
// with the server's secret. Whoever holds the link sees that one document, as the email's
// recipient would.

/** An order's documents (named by the order's id) and a credit note (named by its own id). */
export type LinkedDocument = "receipt" | "invoice" | "credit_note";

/** The path the links point at (`order-document-links.routes.ts`), for the document and its id. */
export const documentLinkPath = (id: string, document: LinkedDocument) =>
  document === "credit_note" ? `/documents/credit-notes/${id}` : `/documents/orders/${id}/${document}`;

/** How long an emailed link works: a year, long enough for a bookkeeper's question; the portal has the documents after that. */
export const DOCUMENT_LINK_TTL_MS = 365 * 24 * 3600 * 1000;

const signedFields = (id: string, document: LinkedDocument, expires: number) => ["document-link", document, id, expires];

/** The link to the document, working until `expiresAt`. */
export function signDocumentLink(
  options: { secret: string; publicBaseUrl: string },
  link: { id: string; document: LinkedDocument; expiresAt: Date },
): string {
  const expires = Math.floor(link.expiresAt.getTime() / 1000);
  const query = new URLSearchParams({
    expires: String(expires),
    signature: signFields(options.secret, signedFields(link.id, link.document, expires)),
  });
  return `${options.publicBaseUrl}${documentLinkPath(link.id, link.document)}?${query.toString()}`;
}

/** Whether a link's signature is this server's for that document and id, and it has not expired. */
export function documentLinkValid(
  secret: string,
  link: { id: string; document: LinkedDocument; expires: string; signature: string },
  now: Date,
): boolean {
  if (!/^\d{1,12}$/.test(link.expires) || !notExpired(Number(link.expires), now)) return false;
  return signatureMatches(secret, signedFields(link.id, link.document, Number(link.expires)), link.signature);
}
