import { openSecret, sealSecret } from "../../values/sealed-secrets.ts";
import { generateToken } from "../../values/tokens.ts";

/**
 * Endpoint signing secrets: every delivery needs the secret itself, so it is sealed
 * (`values/sealed-secrets.ts`) rather than hashed, and a database dump alone does not let anyone
 * forge deliveries.
 */

const WEBHOOK_SECRET_PREFIX = "whsec_";
// The sealing purpose of endpoint secrets since they were first stored; changing it would strand them.
const PURPOSE = "webhook-endpoint-secret";

export const generateWebhookSecret = (): string => generateToken(WEBHOOK_SECRET_PREFIX);

export const sealWebhookSecret = (serverSecret: string, secret: string): string => sealSecret(serverSecret, PURPOSE, secret);

export const openWebhookSecret = (serverSecret: string, sealed: string): string => openSecret(serverSecret, PURPOSE, sealed);

/** An endpoint's sealed secrets as stored: the current one and, after a rotation, the one it replaced. */
export interface SealedSecrets {
  secret_sealed: string;
  previous_secret_sealed: string | null;
  previous_secret_expires_at: Date | null;
}

/** The secrets that sign an attempt made `at`: the current one, then the replaced one while its overlap lasts. */
export function signingSecrets(serverSecret: string, sealed: SealedSecrets, at: Date): string[] {
  const secrets = [openWebhookSecret(serverSecret, sealed.secret_sealed)];
  if (sealed.previous_secret_sealed !== null && sealed.previous_secret_expires_at !== null && at < sealed.previous_secret_expires_at) {
    secrets.push(openWebhookSecret(serverSecret, sealed.previous_secret_sealed));
  }
  return secrets;
}
