import { createCipheriv, createDecipheriv, createHash, randomBytes } from "node:crypto";

/**
 * Secrets the server must read back (webhook endpoint secrets, license signing keys), so they
 * cannot be stored as hashes. They are sealed with AES-256-GCM under a key derived from the server
 * secret and the secret's purpose, so a database dump alone yields none of them and a sealed value
 * of one purpose never opens as another.
 */

const VERSION = "v1";

/** `purpose` names the kind of secret; it is part of the key, so it must never change for stored values. */
const sealingKey = (serverSecret: string, purpose: string): Buffer =>
  createHash("sha256").update(`commerce-api:${purpose}:`).update(serverSecret).digest();

export function sealSecret(serverSecret: string, purpose: string, secret: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", sealingKey(serverSecret, purpose), iv);
  const ciphertext = Buffer.concat([cipher.update(secret, "utf8"), cipher.final()]);
  return `${VERSION}.${Buffer.concat([iv, cipher.getAuthTag(), ciphertext]).toString("base64url")}`;
}

export function openSecret(serverSecret: string, purpose: string, sealed: string): string {
  const [version, body] = sealed.split(".", 2);
  if (version !== VERSION || body === undefined) throw new Error(`unknown ${purpose} seal`);
  const raw = Buffer.from(body, "base64url");
  const decipher = createDecipheriv("aes-256-gcm", sealingKey(serverSecret, purpose), raw.subarray(0, 12));
  decipher.setAuthTag(raw.subarray(12, 28));
  return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString("utf8");
}
