import { createHmac, timingSafeEqual } from "node:crypto";

// Links that work without a session (emailed documents, stored files, upload parts, downloads):
// an HMAC with the server's secret over what the link names and when it expires. The first field
// names the kind of link, so a signature made for one kind is never valid for another.

/** The signature over the fields, in order (base64url). */
export const signFields = (secret: string, fields: readonly (string | number)[]): string =>
  createHmac("sha256", secret).update(fields.join("\n")).digest("base64url");

/** Whether `given` is the signature over the fields, compared in constant time. */
export function signatureMatches(secret: string, fields: readonly (string | number)[], given: string): boolean {
  const expected = Buffer.from(signFields(secret, fields));
  const offered = Buffer.from(given);
  return expected.length === offered.length && timingSafeEqual(expected, offered);
}

/** Whether an expiry in Unix seconds is still ahead of `now`. */
export const notExpired = (expires: number, now: Date): boolean => expires * 1000 > now.getTime();

/** `now` plus a lifetime, in Unix seconds (what signed links carry). */
export const expiryAfter = (now: Date, seconds: number): number => Math.floor(now.getTime() / 1000) + seconds;
