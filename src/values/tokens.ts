import { createHmac, randomInt } from "node:crypto";
import { crc32 } from "node:zlib";

const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const RANDOM_LENGTH = 37;
const CHECKSUM_LENGTH = 6;

export const TokenPrefix = {
  personalAccess: "polar_pat_",
  organizationAccess: "polar_oat_",
  customerSession: "polar_cst_",
  memberSession: "polar_mst_",
  checkoutClientSecret: "polar_c_",
  checkoutLinkClientSecret: "polar_cl_",
} as const;

function base62(value: number): string {
  let out = "";
  let rest = value;
  do {
    out = ALPHABET[rest % 62] + out;
    rest = Math.floor(rest / 62);
  } while (rest > 0);
  return out;
}

/** `prefix` + 37 CSPRNG characters of [A-Za-z0-9] + a 6-character base62 CRC32 of them. */
export function generateToken(prefix: string): string {
  let random = "";
  for (let i = 0; i < RANDOM_LENGTH; i += 1) random += ALPHABET[randomInt(ALPHABET.length)];
  return `${prefix}${random}${checksum(random)}`;
}

const checksum = (random: string): string => base62(crc32(random)).padStart(CHECKSUM_LENGTH, "0");

/** Cheap shape check before any database work: rejects typos and truncated tokens early. */
export function hasValidChecksum(token: string, prefix: string): boolean {
  const body = token.slice(prefix.length);
  if (body.length !== RANDOM_LENGTH + CHECKSUM_LENGTH || !/^[A-Za-z0-9]+$/.test(body)) return false;
  return checksum(body.slice(0, RANDOM_LENGTH)) === body.slice(RANDOM_LENGTH);
}

/** Tokens are stored only as this keyed hash, so a database leak reveals no usable token. */
export const hashToken = (secret: string, token: string): string => createHmac("sha256", secret).update(token, "utf8").digest("hex");
