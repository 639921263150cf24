import Stripe from "stripe";
import type { StripeConfig } from "../../payments-config.ts";

/** The Stripe API version every request is made at: the one the hosted service pins, and this SDK release's own. */
export const STRIPE_API_VERSION = "2026-01-28.clover";

/**
 * The SDK pointed at `STRIPE_API_URL`: Stripe's own API, an egress proxy, or a test stand-in. The
 * SDK retries network failures itself, adding an idempotency key to each retried POST.
 */
export function createStripeClient(config: StripeConfig): Stripe {
  const { apiUrl } = config;
  const protocol = apiUrl.protocol === "http:" ? "http" : "https";
  return new Stripe(config.secretKey, {
    apiVersion: STRIPE_API_VERSION,
    host: apiUrl.hostname,
    port: Number(apiUrl.port || (protocol === "http" ? 80 : 443)),
    protocol,
    maxNetworkRetries: 2,
    timeout: 30_000,
    telemetry: false,
    appInfo: { name: "commerce-api" },
  });
}
