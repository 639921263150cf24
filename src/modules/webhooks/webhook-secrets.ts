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
