import { notExpired, signFields, signatureMatches } from "../../values/signatures.ts";

// Links to an order's receipt and invoice that an email can carry: no session, no token, only a
// signature over the order, the document and the link's expiry, made with the server's secret.
// Whoever holds the link sees that one document, as the email's recipient would.

export type LinkedDocument = "receipt" | "invoice";

/** The path the links point at (`document-links.routes.ts`), for the order and the document. */
export const documentLinkPath = (orderId: string, document: LinkedDocument) => `/documents/orders/${orderId}/${document}`;

/** How long an emailed link works: a year, long enough for a bookkeeper's question; the portal has the documents after that. */
export const DOCUMENT_LINK_TTL_MS = 365 * 24 * 3600 * 1000;

const signedFields = (orderId: string, document: LinkedDocument, expires: number) => ["document-link", document, orderId, expires];

/** The link to the document, working until `expiresAt`. */
export function signDocumentLink(
  options: { secret: string; publicBaseUrl: string },
  link: { orderId: string; document: LinkedDocument; expiresAt: Date },
): string {
  const expires = Math.floor(link.expiresAt.getTime() / 1000);
  const query = new URLSearchParams({
    expires: String(expires),
    signature: signFields(options.secret, signedFields(link.orderId, link.document, expires)),
  });
  return `${options.publicBaseUrl}${documentLinkPath(link.orderId, link.document)}?${query.toString()}`;
}

/** Whether a link's signature is this server's for that order and document, and it has not expired. */
export function documentLinkValid(
  secret: string,
  link: { orderId: string; document: LinkedDocument; expires: string; signature: string },
  now: Date,
): boolean {
  if (!/^\d{1,12}$/.test(link.expires) || !notExpired(Number(link.expires), now)) return false;
  return signatureMatches(secret, signedFields(link.orderId, link.document, Number(link.expires)), link.signature);
}
