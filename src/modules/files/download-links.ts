import { AppError } from "../../http/errors.ts";
import { expiryAfter, notExpired, signFields, signatureMatches } from "../../values/signatures.ts";

// A portal download link names one downloadable row and when it stops working, signed with the
// server's secret; following it counts a download and redirects to the stored file. It is not
// checked against the grant again (as the hosted service's): it works until it expires.

/** How long a listed download link works, as the hosted service's (an hour). */
export const DOWNLOAD_LINK_TTL_SECONDS = 3600;

/** Where the links point (`downloadables.routes.ts` serves it). */
export const downloadLinkPath = (token: string) => `/v1/customer-portal/downloadables/${token}`;

export class DownloadLinkExpired extends AppError {
  constructor() {
    super(410, "ResourceGone", "This download link has expired.");
  }
}

const fields = (downloadableId: string, expires: number) => ["downloadable", downloadableId, expires];

/** A link's token: `<downloadable id>.<expiry, Unix seconds>.<signature>`. */
export function signDownloadToken(secret: string, downloadableId: string, now: Date): { token: string; expiresAt: Date } {
  const expires = expiryAfter(now, DOWNLOAD_LINK_TTL_SECONDS);
  return {
    token: `${downloadableId}.${expires}.${signFields(secret, fields(downloadableId, expires))}`,
    expiresAt: new Date(expires * 1000),
  };
}

/**
 * The downloadable a token names. A token this server did not sign (or altered) is unknown (404,
 * learning nothing); a signed one past its expiry is gone (410).
 */
export function verifyDownloadToken(secret: string, token: string, now: Date): string | null {
  const match = /^([0-9a-f-]{36})\.(\d{1,12})\.([A-Za-z0-9_-]{1,128})$/.exec(token);
  if (!match) return null;
  const [, id, expires, signature] = match as unknown as [string, string, string, string];
  if (!signatureMatches(secret, fields(id, Number(expires)), signature)) return null;
  if (!notExpired(Number(expires), now)) throw new DownloadLinkExpired();
  return id;
}

// An order email's download link names one downloadable row and never expires (an email is read
// days later); following it checks that the row is still granted, so a revoked grant (a refund, a
// removed benefit, an archived file) ends it. See docs/decisions.md.

/** Where an order email's links point (`portal-downloadables.routes.ts` serves it). */
export const emailDownloadLinkPath = (token: string) => `/downloads/${token}`;

const emailFields = (downloadableId: string) => ["downloadable-email", downloadableId];

/** An email link's token: `<downloadable id>.<signature>`. */
export const signEmailDownloadToken = (secret: string, downloadableId: string): string =>
  `${downloadableId}.${signFields(secret, emailFields(downloadableId))}`;

/** The downloadable an email token names; null for one this server did not sign. */
export function verifyEmailDownloadToken(secret: string, token: string): string | null {
  const match = /^([0-9a-f-]{36})\.([A-Za-z0-9_-]{1,128})$/.exec(token);
  if (!match) return null;
  const [, id, signature] = match as unknown as [string, string, string];
  return signatureMatches(secret, emailFields(id), signature) ? id : null;
}
