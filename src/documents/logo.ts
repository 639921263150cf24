/**
 * The seller's logo as documents draw it: an image carried in the avatar URL itself (a `data:` URL
 * of a PNG or JPEG), or the PNG or JPEG fetched from an http(s) avatar URL by a job when the URL
 * was set (`organizations/organization-logos.*`) and stored with that URL. Nothing is fetched while
 * rendering: an invoice renders from stored data only, never waits on a third party
 * (docs/decisions.md, "The seller's logo on documents").
 */
const DATA_URL = /^data:image\/(png|jpeg);base64,([A-Za-z0-9+/]+={0,2})$/;
const SIGNATURES = {
  png: Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
  jpeg: Buffer.from([0xff, 0xd8, 0xff]),
} as const;
export type LogoFormat = keyof typeof SIGNATURES;

/** Bigger images are not drawn, nor read from an avatar URL beyond this many bytes. */
export const MAX_LOGO_BYTES = 256 * 1024;

/** The format whose signature the bytes start with, among those drawn (PNG, JPEG); null for anything else or too big. */
export function logoFormat(bytes: Buffer): LogoFormat | null {
  if (bytes.length === 0 || bytes.length > MAX_LOGO_BYTES) return null;
  for (const format of ["png", "jpeg"] as const) {
    const signature = SIGNATURES[format];
    if (bytes.subarray(0, signature.length).equals(signature)) return format;
  }
  return null;
}

/** The image bytes of a `data:` URL of a PNG or JPEG whose bytes are one; null for anything else. */
export function logoImage(url: string | null): Buffer | null {
  const match = url ? DATA_URL.exec(url) : null;
  if (!match) return null;
  const bytes = Buffer.from(match[2] ?? "", "base64");
  return logoFormat(bytes) === match[1] ? bytes : null;
}
