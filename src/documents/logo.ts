/**
 * The seller's logo as documents draw it: only an image carried in the avatar URL itself (a `data:`
 * URL of a PNG or JPEG). Nothing is fetched while rendering: an invoice renders to the same bytes
 * every time, never waits on a third party, and a URL never makes this server connect anywhere
 * (docs/decisions.md, "The seller's logo on documents").
 */
const DATA_URL = /^data:image\/(png|jpeg);base64,([A-Za-z0-9+/]+={0,2})$/;
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const JPEG_START = Buffer.from([0xff, 0xd8, 0xff]);

/** Bigger images are not drawn (an avatar URL is at most 2 083 characters today; this bounds any other source). */
export const MAX_LOGO_BYTES = 256 * 1024;

/** The image bytes of a `data:` URL of a PNG or JPEG whose bytes are one; null for anything else. */
export function logoImage(url: string | null): Buffer | null {
  const match = url ? DATA_URL.exec(url) : null;
  if (!match) return null;
  const bytes = Buffer.from(match[2] ?? "", "base64");
  if (bytes.length === 0 || bytes.length > MAX_LOGO_BYTES) return null;
  const signature = match[1] === "png" ? PNG_SIGNATURE : JPEG_START;
  return bytes.subarray(0, signature.length).equals(signature) ? bytes : null;
}
