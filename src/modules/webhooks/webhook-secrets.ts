import { createCipheriv, createDecipheriv, createHash, randomBytes } from "node:crypto";
import { generateToken } from "../../values/tokens.ts";

/**
 * Endpoint signing secrets. Unlike access tokens they cannot be stored as hashes: every delivery
 * needs the secret itself. They are sealed with AES-256-GCM under a key derived from the server
 * secret, so a database dump alone does not let anyone forge deliveries.
 */

const WEBHOOK_SECRET_PREFIX = "whsec_";
const VERSION = "v1";

export const generateWebhookSecret = (): string => generateToken(WEBHOOK_SECRET_PREFIX);

const sealingKey = (serverSecret: string): Buffer =>
  createHash("sha256").update("commerce-api:webhook-endpoint-secret:").update(serverSecret).digest();

export function sealSecret(serverSecret: string, secret: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", sealingKey(serverSecret), iv);
  const ciphertext = Buffer.concat([cipher.update(secret, "utf8"), cipher.final()]);
  return `${VERSION}.${Buffer.concat([iv, cipher.getAuthTag(), ciphertext]).toString("base64url")}`;
}

export function openSecret(serverSecret: string, sealed: string): string {
  const [version, body] = sealed.split(".", 2);
  if (version !== VERSION || body === undefined) throw new Error("unknown webhook secret seal");
  const raw = Buffer.from(body, "base64url");
  const decipher = createDecipheriv("aes-256-gcm", sealingKey(serverSecret), raw.subarray(0, 12));
  decipher.setAuthTag(raw.subarray(12, 28));
  return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString("utf8");
}

/** An endpoint's sealed secrets as stored: the current one and, after a rotation, the one it replaced. */
export interface SealedSecrets {
  secret_sealed: string;
  previous_secret_sealed: string | null;
  previous_secret_expires_at: Date | null;
}

/** The secrets that sign an attempt made `at`: the current one, then the replaced one while its overlap lasts. */
export function signingSecrets(serverSecret: string, sealed: SealedSecrets, at: Date): string[] {
  const secrets = [openSecret(serverSecret, sealed.secret_sealed)];
  if (sealed.previous_secret_sealed !== null && sealed.previous_secret_expires_at !== null && at < sealed.previous_secret_expires_at) {
    secrets.push(openSecret(serverSecret, sealed.previous_secret_sealed));
  }
  return secrets;
}
